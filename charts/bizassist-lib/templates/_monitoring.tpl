{{/* Monitoring objects: the switches, labels and annotations the Prometheus operator and the
Grafana sidecar select by, and the PrometheusRule and dashboard ConfigMaps a chart ships from its
own rules/*.yaml and dashboards/*.json. Shared settings live in global.monitoring (umbrella
values); a service chart installed alone gets the defaults written here. */}}

{{/* "true" when a monitoring.coreos.com object renders: enabled true always, false never, "auto"
when the cluster serves the API (.Capabilities, which `helm template` does not know; GitOps
renders set true). (dict "enabled" <value> "ctx" $ "api" "monitoring.coreos.com/v1/<Kind>") */}}
{{- define "bizassist-lib.monitoringOn" -}}
{{- $e := toString .enabled -}}
{{- if eq $e "true" -}}
true
{{- else if and (eq $e "auto") (.ctx.Capabilities.APIVersions.Has .api) -}}
true
{{- end -}}
{{- end -}}

{{/* Labels of a ServiceMonitor or PrometheusRule: global.monitoring.labels (default release:
kube-prometheus-stack, what that chart's Prometheus selects when installed as
kube-prometheus-stack), then the object's own .labels, which win. (dict "ctx" $ "labels" <map>) */}}
{{- define "bizassist-lib.monitoringLabels" -}}
{{- $global := dig "monitoring" "labels" (dict "release" "kube-prometheus-stack") (.ctx.Values.global | default dict) -}}
{{- $all := merge (deepCopy (.labels | default dict)) (deepCopy ($global | default dict)) -}}
{{- with $all }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{/* The spec of a PrometheusRule: the groups of the chart files .files, in order, then .extra
(groups from values). Every alert gets annotations.runbook_url = <runbookBaseUrl>/<alert>.md
unless it sets its own; docs/runbooks/ has one page per shipped alert (tools/kube checks it).
(dict "ctx" $ "files" (list ...) "extra" <list> "for" <alert name: its for, replacing the file's>) */}}
{{- define "bizassist-lib.ruleSpec" -}}
{{- $base := dig "monitoring" "runbookBaseUrl" "https://github.com/bizassist/bizassist/blob/main/docs/runbooks" (.ctx.Values.global | default dict) | trimSuffix "/" -}}
{{- $groups := list -}}
{{- range $f := .files -}}
{{- $groups = concat $groups ((fromYaml ($.ctx.Files.Get $f)).groups | default list) -}}
{{- end -}}
{{- $groups = concat $groups (deepCopy (.extra | default list)) -}}
{{- range $g := $groups -}}
{{- range $r := $g.rules -}}
{{- if $r.alert -}}
{{- $ann := $r.annotations | default dict -}}
{{- if not (hasKey $ann "runbook_url") -}}
{{- $_ := set $ann "runbook_url" (printf "%s/%s.md" $base $r.alert) -}}
{{- end -}}
{{- $_ := set $r "annotations" $ann -}}
{{- with index ($.for | default dict) $r.alert -}}
{{- $_ := set $r "for" . -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "groups" $groups) -}}
{{- end -}}

{{/* A service chart's own PrometheusRule: its rules/*.yaml plus prometheusRule.extraRules. */}}
{{- define "bizassist-lib.prometheusRule" -}}
{{- $v := .ctx.Values.prometheusRule | default dict -}}
{{- $files := list -}}
{{- range $path, $_ := .ctx.Files.Glob "rules/*.yaml" }}{{ $files = append $files $path }}{{ end -}}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
    {{- with include "bizassist-lib.monitoringLabels" (dict "ctx" .ctx "labels" $v.labels) }}
    {{- . | nindent 4 }}
    {{- end }}
spec:
  {{- include "bizassist-lib.ruleSpec" (dict "ctx" .ctx "files" (sortAlpha $files) "extra" $v.extraRules) | nindent 2 }}
{{- end -}}

{{/* One dashboard ConfigMap for the Grafana sidecar: the dashboards.label the sidecar watches,
and the folder annotation (global.monitoring.dashboards: folderAnnotation, default
k8s-sidecar-target-directory, what the sidecar reads unless told otherwise; folder, default
bizassist; an empty folder leaves the annotation out).
(dict "ctx" $ "component" <labels' component> "name" <ConfigMap name> "path" <file>) */}}
{{- define "bizassist-lib.dashboardConfigMap" -}}
{{- $d := .ctx.Values.dashboards | default dict -}}
{{- $g := dig "monitoring" "dashboards" dict (.ctx.Values.global | default dict) -}}
{{- $folder := dig "folder" "bizassist" $g -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
    {{ dig "label" "grafana_dashboard" $d }}: {{ dig "labelValue" "1" $d | quote }}
  {{- if $folder }}
  annotations:
    {{ dig "folderAnnotation" "k8s-sidecar-target-directory" $g }}: {{ $folder | quote }}
  {{- end }}
data:
  {{ base .path }}: |-
    {{- .ctx.Files.Get .path | nindent 4 }}
{{- end -}}

{{/* A service chart's own dashboards (its dashboards/*.json), when dashboards.enabled. */}}
{{- define "bizassist-lib.dashboards" -}}
{{- if dig "enabled" true (.ctx.Values.dashboards | default dict) }}
{{- range $path, $_ := .ctx.Files.Glob "dashboards/*.json" }}
---
{{ include "bizassist-lib.dashboardConfigMap" (dict "ctx" $.ctx "component" $.component "name" (printf "%s-dashboard-%s" (include "bizassist-lib.fullname" $) (base $path | trimSuffix ".json")) "path" $path) }}
{{- end }}
{{- end }}
{{- end -}}
