{{/* Everything one service deploys. A service chart's only template is
{{ include "bizassist-lib.all" (dict "ctx" $ "component" "<service>") }}. */}}
{{- define "bizassist-lib.all" -}}
{{- include "bizassist-lib.validate" . -}}
{{- $v := .ctx.Values -}}
{{- $g := (($v.global).networkPolicy) | default dict }}
{{- if $v.serviceAccount.create }}
---
{{ include "bizassist-lib.serviceAccount" . }}
{{- end }}
---
{{ include "bizassist-lib.configmap" . }}
---
{{ include "bizassist-lib.service" . }}
---
{{ include "bizassist-lib.deployment" . }}
---
{{ include "bizassist-lib.migrationJob" . }}
{{- if $v.autoscaling.enabled }}
---
{{ include "bizassist-lib.hpa" . }}
{{- end }}
{{- if $v.helmTest.enabled }}
---
{{ include "bizassist-lib.testReadyz" . }}
{{- end }}
{{- if $v.pdb.enabled }}
---
{{ include "bizassist-lib.pdb" . }}
{{- end }}
{{- if (hasKey $g "enabled" | ternary $g.enabled true) }}
---
{{ include "bizassist-lib.networkPolicyDeny" . }}
---
{{ include "bizassist-lib.networkPolicyAllow" . }}
{{- end }}
{{- if include "bizassist-lib.monitoringOn" (dict "enabled" $v.serviceMonitor.enabled "ctx" .ctx "api" "monitoring.coreos.com/v1/ServiceMonitor") }}
---
{{ include "bizassist-lib.serviceMonitor" . }}
{{- end }}
{{- $pr := $v.prometheusRule | default dict }}
{{- if and (include "bizassist-lib.monitoringOn" (dict "enabled" (dig "enabled" "auto" $pr) "ctx" .ctx "api" "monitoring.coreos.com/v1/PrometheusRule")) (or (.ctx.Files.Glob "rules/*.yaml") $pr.extraRules) }}
---
{{ include "bizassist-lib.prometheusRule" . }}
{{- end }}
{{- include "bizassist-lib.dashboards" . }}
{{- end -}}
