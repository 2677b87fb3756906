{{- /*
bizassist.connections is the PostgreSQL connection budget (docs/decisions.md, "Connection
budget"), as JSON {total, parts}: every enabled service's pods at their most (replicas, or the
autoscaler's maximum), one more surging during a rolling update, each with a full pool (its
DATABASE_MAX_CONNS, else global.config's), and one connection for its migration Job.
*/ -}}
{{- define "bizassist.connections" -}}
{{- $total := 0 -}}
{{- $parts := list -}}
{{- range $svc := list "identity" "leads" "assistant" "analytics" "integrations" "console" -}}
{{- $v := index $.Values $svc -}}
{{- if $v.enabled -}}
{{- $pool := int (coalesce (index ($v.env | default dict) "DATABASE_MAX_CONNS") $.Values.global.config.DATABASE_MAX_CONNS 4) -}}
{{- $pods := int (ternary $v.autoscaling.maxReplicas $v.replicas $v.autoscaling.enabled) -}}
{{- $n := add (mul (add $pods 1) $pool) 1 -}}
{{- $total = add $total $n -}}
{{- $parts = append $parts (printf "%s %d = (%d + 1 surging) pods x %d + 1 migration" $svc $n $pods $pool) -}}
{{- end -}}
{{- end -}}
{{- dict "total" $total "parts" $parts | toJson -}}
{{- end -}}
