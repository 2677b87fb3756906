{{/*
Every template here takes (dict "ctx" $ "component" "<service>"): ctx is the calling chart's root
context, component the service name, which is also its binary, schema and label.
*/}}

{{/* <release>-<component>: peers compute each other's Service names this way, so there is no
nameOverride. */}}
{{- define "bizassist-lib.fullname" -}}
{{- printf "%s-%s" .ctx.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "bizassist-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ .component }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- end -}}

{{/* The server pods only: the migration Job shares the selector labels (so the NetworkPolicies
cover it) but must never receive Service traffic. */}}
{{- define "bizassist-lib.serverSelectorLabels" -}}
{{ include "bizassist-lib.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "bizassist-lib.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "bizassist-lib.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: bizassist
{{- end -}}

{{/* Registry and tag come from global.image when set, so one value retags every service;
image.digest (sha256:...) pins the image by content and wins over every tag. */}}
{{- define "bizassist-lib.image" -}}
{{- $v := .ctx.Values -}}
{{- $g := (($v.global).image) | default dict -}}
{{- $registry := $g.registry | default $v.image.registry -}}
{{- $tag := $g.tag | default $v.image.tag | default .ctx.Chart.AppVersion -}}
{{- $repo := $v.image.repository -}}
{{- if $registry -}}{{- $repo = printf "%s/%s" $registry $repo -}}{{- end -}}
{{- if $v.image.digest -}}{{ printf "%s@%s" $repo $v.image.digest }}{{- else -}}{{ printf "%s:%s" $repo $tag }}{{- end -}}
{{- end -}}

{{- define "bizassist-lib.pullPolicy" -}}
{{- (((.ctx.Values.global).image).pullPolicy) | default .ctx.Values.image.pullPolicy -}}
{{- end -}}

{{/* Non-secret environment as YAML: computed defaults, overridden by global.config, overridden by
the service's env. Peers are env names whose value is a peer service's in-cluster URL. */}}
{{- define "bizassist-lib.envMap" -}}
{{- $ctx := .ctx -}}
{{- $v := $ctx.Values -}}
{{- $env := dict
    "HTTP_ADDR" (printf ":%d" (int $v.containerPort))
    "HTTP_DRAIN_DELAY" (printf "%ds" (int $v.shutdown.drainDelaySeconds))
    "HTTP_SHUTDOWN_TIMEOUT" (printf "%ds" (int $v.shutdown.timeoutSeconds))
    "DATABASE_SCHEMA" .component
    "JWT_JWKS_URL" (printf "http://%s-identity/api/auth/jwks.json" $ctx.Release.Name) -}}
{{- range $name, $peer := $v.peers -}}
{{- $_ := set $env $name (printf "http://%s-%s" $ctx.Release.Name $peer) -}}
{{- end -}}
{{- $global := deepCopy ((($v.global).config) | default dict) -}}
{{- $own := deepCopy ($v.env | default dict) -}}
{{- $merged := merge $own $global $env -}}
{{- range $k := keys $merged | sortAlpha }}
{{ $k }}: {{ get $merged $k | toString | quote }}
{{- end -}}
{{- end -}}

{{/* Secret-backed variables: each is a key of the same name in the service's Secret. */}}
{{- define "bizassist-lib.secretEnv" -}}
{{- $secret := include "bizassist-lib.secretName" . -}}
{{- range .ctx.Values.secretEnv }}
- name: {{ . }}
  valueFrom:
    secretKeyRef: {name: {{ $secret }}, key: {{ . }}}
{{- end }}
{{- range .ctx.Values.optionalSecretEnv }}
- name: {{ . }}
  valueFrom:
    secretKeyRef: {name: {{ $secret }}, key: {{ . }}, optional: true}
{{- end }}
{{- end -}}

{{/* GOMEMLIMIT: 90% of the container's memory limit in bytes, so the Go heap (and every budget
sized from it, such as identity's password hashing) stays inside the limit with headroom for
stacks and buffers. Empty when no limit is set. */}}
{{- define "bizassist-lib.gomemlimit" -}}
{{- $limit := toString (((.ctx.Values.resources).limits).memory | default "") -}}
{{- if $limit -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $unit := regexReplaceAll "^[0-9]+" $limit "" -}}
{{- if not (hasKey $units $unit) -}}
{{- fail (printf "%s: resources.limits.memory %q: use a whole number with an optional k, M, G, T, Ki, Mi, Gi or Ti suffix" .component $limit) -}}
{{- end -}}
{{- div (mul (regexFind "^[0-9]+" $limit | int64) (get $units $unit) 9) 10 -}}
{{- end -}}
{{- end -}}

{{- define "bizassist-lib.secretName" -}}
{{- .ctx.Values.existingSecret | default (printf "%s-secrets" (include "bizassist-lib.fullname" .)) -}}
{{- end -}}

{{/* Pod spec parts shared by the server and the migration Job. */}}
{{- define "bizassist-lib.podSecurity" -}}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .ctx.Values.podSecurityContext | nindent 2 }}
{{- with .ctx.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "bizassist-lib.serviceAccountName" -}}
{{- if .ctx.Values.serviceAccount.create -}}
{{- .ctx.Values.serviceAccount.name | default (include "bizassist-lib.fullname" .) -}}
{{- else -}}
{{- .ctx.Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* What a pod needs from SIGTERM to exit: the preStop sleep, then the server's own drain delay
(HTTP_DRAIN_DELAY: /readyz fails, requests still served), then up to HTTP_SHUTDOWN_TIMEOUT for
in-flight requests, plus 5s for the process to exit. */}}
{{- define "bizassist-lib.shutdownBudget" -}}
{{- $s := .ctx.Values.shutdown -}}
{{- add (mul (int $s.drainDelaySeconds) 2) (int $s.timeoutSeconds) 5 -}}
{{- end -}}

{{/* terminationGracePeriodSeconds: the value when set (validate refuses one below the budget),
else the shutdown budget. */}}
{{- define "bizassist-lib.terminationGracePeriodSeconds" -}}
{{- .ctx.Values.terminationGracePeriodSeconds | default (include "bizassist-lib.shutdownBudget" .) -}}
{{- end -}}

{{/* Refuses values the schema cannot express (it cannot compare two values). */}}
{{- define "bizassist-lib.validate" -}}
{{- $budget := include "bizassist-lib.shutdownBudget" . | int -}}
{{- with .ctx.Values.terminationGracePeriodSeconds -}}
{{- if lt (int .) $budget -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) is below the shutdown budget (%d = 2 x shutdown.drainDelaySeconds + shutdown.timeoutSeconds + 5): the kubelet would kill in-flight requests" (int .) $budget) -}}
{{- end -}}
{{- end -}}
{{- if and .ctx.Values.testReceiverAddresses (ne .component "integrations") -}}
{{- fail (printf "%s: testReceiverAddresses is integrations' (the addresses its deliveries may reach in a chart test)" .component) -}}
{{- end -}}
{{- $a := .ctx.Values.autoscaling -}}
{{- if and $a.enabled (lt (int $a.maxReplicas) (int $a.minReplicas)) -}}
{{- fail (printf "%s: autoscaling.maxReplicas (%d) is below autoscaling.minReplicas (%d)" .component (int $a.maxReplicas) (int $a.minReplicas)) -}}
{{- end -}}
{{- end -}}
