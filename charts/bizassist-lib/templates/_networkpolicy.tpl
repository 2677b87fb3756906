{{/* Deny everything to and from this service's pods; the policy below opens what it needs. */}}
{{- define "bizassist-lib.networkPolicyDeny" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "bizassist-lib.fullname" . }}-default-deny
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "bizassist-lib.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
{{- end -}}

{{/* The allows: ingress controller and Prometheus in, the callers listed in allowFrom in; DNS,
PostgreSQL, Redis and the peers in egressTo out, plus extraEgress (e.g. webhook targets). The
environment-wide parts (namespaces, database and Redis destinations) come from global.networkPolicy. */}}
{{- define "bizassist-lib.networkPolicyAllow" -}}
{{- $ctx := .ctx -}}
{{- $v := $ctx.Values -}}
{{- $g := (($v.global).networkPolicy) | default dict -}}
{{- $db := $g.database | default (dict "port" 5432) -}}
{{- $redis := $g.redis | default (dict "port" 6379) -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "bizassist-lib.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    - from:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: {{ $g.ingressNamespace | default "ingress-nginx" }}}
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: {{ $g.monitoringNamespace | default "monitoring" }}}
        # helm test's readiness check (bizassist-lib.testReadyz).
        - podSelector:
            matchLabels: {app.kubernetes.io/name: {{ .component }}-helm-test, app.kubernetes.io/instance: {{ $ctx.Release.Name }}}
        {{- range $v.networkPolicy.allowFrom }}
        - podSelector:
            matchLabels: {app.kubernetes.io/name: {{ . }}, app.kubernetes.io/instance: {{ $ctx.Release.Name }}}
        {{- end }}
      ports:
        - {port: http, protocol: TCP}
  egress:
    - to:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: {{ $g.dnsNamespace | default "kube-system" }}}
      ports:
        - {port: 53, protocol: UDP}
        - {port: 53, protocol: TCP}
    - ports:
        - {port: {{ $db.port }}, protocol: TCP}
      {{- with $db.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    - ports:
        - {port: {{ $redis.port }}, protocol: TCP}
      {{- with $redis.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- with $v.networkPolicy.egressTo }}
    - to:
        {{- range . }}
        - podSelector:
            matchLabels: {app.kubernetes.io/name: {{ . }}, app.kubernetes.io/instance: {{ $ctx.Release.Name }}}
        {{- end }}
      ports:
        - {port: {{ $v.containerPort }}, protocol: TCP}
    {{- end }}
    {{- with $v.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
