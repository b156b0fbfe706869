#!/usr/bin/env bash
# The chart's alerting rules (chart/files/prometheus-rules.yaml, rendered by
# chart/templates/prometheusrule.yaml) through promtool, as `npm test` runs it: `promtool check
# rules` (syntax, PromQL, templates) and `promtool test rules` (the unit tests in test/promtool/,
# series in, alerts out). promtool is built from its Go module (test/infra/build-promtool.sh, cached).
set -euo pipefail
cd "$(dirname "$0")/.."
last="$(bash test/infra/build-promtool.sh | tee /dev/stderr | tail -n 1)"
promtool="${last#test-infra: promtool }"
"$promtool" check rules chart/files/prometheus-rules.yaml
"$promtool" test rules test/promtool/*.test.yaml
