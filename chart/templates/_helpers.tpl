{{/*
Names are fixed, not derived from the release name: the functions address the Broker as
`nats-operator` (shared/local/schedule.ts), and the ClusterRoles are cluster-wide, so one
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
The delivery of the Broker and every Trigger, as shared/local/delivery.ts (brokerDelivery)
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
{{- if .Values.oidc.verifyDeliveries }}
  audience: {{ include "nats-operator.audience" (list . "dead-letter") | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The OIDC audience of function .name's Knative Service (oidc.verifyDeliveries): what the Broker's
filter asks tokens for (a Knative Service announces no audience of its own, so the Trigger names
it) and what the function checks them against. Knative's own style: group/kind/namespace/name.
*/}}
{{- define "nats-operator.audience" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
serving.knative.dev/service/{{ $root.Release.Namespace }}/{{ eq $name "dead-letter" | ternary "nats-operator-dead-letter" $name }}
{{- end }}

{{/*
The identities function .name accepts deliveries from (oidc.verifyDeliveries): the Broker's filter
sends as each Trigger's own ServiceAccount, `<trigger>-oidc-eventing.knative.dev-trigger` in the
Trigger's namespace (Knative Eventing pkg/auth/serviceaccount.go). A function takes its own
Trigger's; dead-letter takes every Trigger's, as it receives what each could not deliver.
*/}}
{{- define "nats-operator.senders" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $senders := list -}}
{{- range $trigger := list "render-cluster" "step-rollout" "sign-account" "sync-stream" "balance" -}}
{{- if and (include "nats-operator.enabled" (list $root $trigger)) (or (eq $name "dead-letter") (eq $name $trigger)) -}}
{{- $senders = append $senders (printf "system:serviceaccount:%s:%s-oidc-eventing.knative.dev-trigger" $root.Release.Namespace $trigger) -}}
{{- end -}}
{{- end -}}
{{- join "," $senders -}}
{{- end }}

{{/* A Trigger's annotations: the Kafka class's delivery order, when one is chosen. */}}
{{- define "nats-operator.triggerAnnotations" -}}
{{- with .Values.broker.deliveryOrder }}
annotations:
  kafka.eventing.knative.dev/delivery.order: {{ . | quote }}
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

{{/*
The namespaces a confined installation (watchNamespaces) serves, comma-separated: those named and
the release namespace (balance's leases, the operator's own objects). Empty when it serves all.
*/}}
{{- define "nats-operator.watchedNamespaces" -}}
{{- if .Values.watchNamespaces -}}
{{- concat .Values.watchNamespaces (list .Release.Namespace) | uniq | join "," -}}
{{- end -}}
{{- end }}

{{/*
How a function's ClusterRole is bound: cluster-wide, or with watchNamespaces a RoleBinding in each
watched namespace, so the role holds there only. include "nats-operator.binding" (list $ "nats-operator-balance")
*/}}
{{- define "nats-operator.binding" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $watched := include "nats-operator.watchedNamespaces" $root -}}
{{- range $namespace := ternary (splitList "," $watched) (list "") (ne $watched "") }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ ternary "RoleBinding" "ClusterRoleBinding" (ne $namespace "") }}
metadata:
  name: {{ $name }}
  {{- if $namespace }}
  namespace: {{ $namespace }}
  {{- end }}
  labels:
    app.kubernetes.io/part-of: nats-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ $name }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end }}

{{/* The namespaces an ApiServerSource watches: every one, or the watched ones. */}}
{{- define "nats-operator.namespaceSelector" -}}
{{- $watched := include "nats-operator.watchedNamespaces" . -}}
{{- if $watched }}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: In
      values: {{ splitList "," $watched | toJson }}
{{- else }}
namespaceSelector: {}
{{- end }}
{{- end }}
