#!/usr/bin/env bash
# actionlint on the GitHub Actions workflows (.github/workflows/), as `npm test` runs it. actionlint
# is built from its Go module (test/infra/build-actionlint.sh, cached); it runs shellcheck on the
# `run:` scripts when shellcheck is on PATH, as it is on GitHub's runners.
set -euo pipefail
cd "$(dirname "$0")/.."
last="$(bash test/infra/build-actionlint.sh | tee /dev/stderr | tail -n 1)"
actionlint="${last#test-infra: actionlint }"
"$actionlint" -no-color .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows/*.yml | wc -l) workflows ok"
