{{/*
Names are fixed, not derived from the release name: the functions address the Broker as
`nats-operator` (shared/eventing/schedule.ts), and the ClusterRoles are cluster-wide, so one
installation per cluster.
*/}}

{{/* The labels every object carries (as in knative/). */}}
{{- define "nats-operator.labels" -}}
app.kubernetes.io/part-of: nats-operator
{{- end }}

{{/* Whether function .name is enabled: include "nats-operator.enabled" (list $ "balance") */}}
{{- define "nats-operator.enabled" -}}
{{- $root := index . 0 -}}
{{- $fn := index $root.Values.functions (index . 1) -}}
{{- if and $fn $fn.enabled }}true{{ end -}}
{{- end }}

{{/* The image: repository:tag, or repository:tag@digest; the tag defaults to appVersion. */}}
{{- define "nats-operator.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion | toString -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}:{{ $tag }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ $tag }}
{{- end -}}
{{- end }}

{{/*
The delivery of the Broker and every Trigger, as shared/eventing/delivery.ts (brokerDelivery)
expects: 10 retries, 0.5 s doubling; the dead-letter Service when it is installed.
*/}}
{{- define "nats-operator.delivery" -}}
retry: 10
backoffPolicy: exponential
backoffDelay: PT0.5S
{{- if include "nats-operator.enabled" (list . "dead-letter") }}
deadLetterSink:
  ref:
    apiVersion: serving.knative.dev/v1
    kind: Service
    name: nats-operator-dead-letter
{{- end }}
{{- end }}

{{/* The Broker every source sinks into. */}}
{{- define "nats-operator.brokerSink" -}}
sink:
  ref:
    apiVersion: eventing.knative.dev/v1
    kind: Broker
    name: nats-operator
{{- end }}
