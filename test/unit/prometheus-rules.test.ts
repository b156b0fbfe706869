// The chart's alerting rules (chart/files/prometheus-rules.yaml) and the Grafana dashboard
// (docs/grafana/nats-operator.json) read only series the functions export or the rules record, and
// every alert links its runbook in docs/troubleshooting.md. promtool checks the PromQL
// and runs the rules' unit tests (scripts/check-rules.sh); this checks what promtool cannot know.
import { describe, expect, it } from "@jest/globals";
import type { Meter } from "@opentelemetry/api";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { registerStatusGauges } from "../../shared/telemetry/status-gauges.ts";
import { repoRoot } from "../harness/paths.ts";

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rulesFile = join(repoRoot, "chart", "files", "prometheus-rules.yaml");
const groups = (parse(readFileSync(rulesFile, "utf8")) as { groups: { name: string; rules: Rule[] }[] }).groups;
const rules = groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert !== undefined);
const runbooks = "https://github.com/nats-operator/nats-operator/blob/main/docs/troubleshooting.md#";

/** An OTLP instrument's name as Prometheus shows it: dots to underscores, a unit of seconds as `_seconds`. */
function prometheusName(name: string, unit: string | undefined): string {
  return name.replaceAll(".", "_") + (unit === "s" ? "_seconds" : "");
}

/** The series the functions export (shared/telemetry): the status gauges and the reconcile instruments. */
function exportedSeries(): Set<string> {
  const names: string[] = [];
  const gauge = { addCallback: () => undefined };
  const meter = {
    createObservableGauge: (name: string, options?: { unit?: string }) => {
      names.push(prometheusName(name, options?.unit));
      return gauge;
    },
  } as unknown as Meter;
  registerStatusGauges(meter);
  // shared/telemetry/instruments.ts#recordReconcile: a counter and a histogram (its _bucket, _sum, _count).
  names.push("nats_operator_reconciles_total", "nats_operator_reconcile_duration_seconds");
  return new Set(names);
}

const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

describe("chart/files/prometheus-rules.yaml", () => {
  it("has the alerts a NATS platform team needs", () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      "NatsAccountJwtExpiringSoon",
      "NatsClusterNotSettled",
      "NatsClusterRolloutGateBlocked",
      "NatsEvacuationStalled",
      "NatsJetstreamObjectTerminal",
      "NatsOperatorEventsDropped",
      "NatsOperatorObjectStalled",
      "NatsStreamNotSynced",
    ]);
  });

  it("reads only series the functions export, or rules of its own", () => {
    const exported = exportedSeries();
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    for (const rule of rules) {
      const read = [...rule.expr.matchAll(/\bnats_operator[a-z_:]*/g)].map((m) => m[0]);
      const unknown = read.filter((name) => !exported.has(name) && !recorded.has(name));
      expect([rule.record ?? rule.alert, unknown]).toEqual([rule.record ?? rule.alert, []]);
    }
    // Each recording rule is read by an alert.
    for (const name of recorded) expect([name, alerts.some((a) => a.expr.includes(name))]).toEqual([name, true]);
  });

  it("gives every alert a severity, a summary, a description and a runbook named after it", () => {
    for (const alert of alerts) {
      const name = alert.alert ?? "";
      expect([name, alert.labels?.["severity"]]).toEqual([name, expect.stringMatching(/^(warning|critical)$/)]);
      expect([name, Object.keys(alert.annotations ?? {}).sort()]).toEqual([
        name,
        ["description", "runbook_url", "summary"],
      ]);
      expect(alert.annotations?.["runbook_url"]).toBe(`${runbooks}${kebab(name)}`);
    }
  });

  it("is what the chart's PrometheusRule template renders, unchanged", () => {
    const template = readFileSync(join(repoRoot, "chart", "templates", "prometheusrule.yaml"), "utf8");
    expect(template).toContain('{{- .Files.Get "files/prometheus-rules.yaml" | nindent 2 }}');
    expect(template).toMatch(/^\{\{- if \.Values\.metrics\.prometheusRule\.enabled \}\}/);
  });
});

describe("docs/grafana/nats-operator.json", () => {
  interface Panel {
    title: string;
    targets: { expr: string }[];
  }
  const dashboard = JSON.parse(readFileSync(join(repoRoot, "docs", "grafana", "nats-operator.json"), "utf8")) as {
    uid: string;
    panels: Panel[];
  };

  it("reads only series the functions export or the rules record", () => {
    const known = new Set([...exportedSeries(), ...rules.flatMap((r) => (r.record ? [r.record] : []))]);
    const read = (expr: string): string[] =>
      [...expr.matchAll(/\bnats_operator[a-z_:]*/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ""));
    for (const panel of dashboard.panels) {
      const exprs = panel.targets.map((t) => t.expr);
      expect([panel.title, exprs.length > 0]).toEqual([panel.title, true]);
      const unknown = exprs.flatMap(read).filter((name) => !known.has(name));
      expect([panel.title, unknown]).toEqual([panel.title, []]);
    }
  });
});
