{{/* One ServiceAccount per service: no API token mounted (the services never call the Kubernetes
API); annotations carry the cloud's workload identity binding (e.g. eks.amazonaws.com/role-arn,
iam.gke.io/gcp-service-account, azure.workload.identity/client-id). */}}
{{- define "bizassist-lib.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "bizassist-lib.serviceAccountName" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
  {{- with .ctx.Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end -}}

{{/* helm test: GET /readyz through the service's ClusterIP Service, so DNS, the Service's
selector and port, the NetworkPolicy and the pods' readiness are all exercised. The Pod carries
the label the service's NetworkPolicy admits for it. */}}
{{- define "bizassist-lib.testReadyz" -}}
{{- $t := .ctx.Values.helmTest -}}
apiVersion: v1
kind: Pod
metadata:
  name: {{ include "bizassist-lib.fullname" . }}-test-readyz
  # Not the service's own name label: the service's default-deny NetworkPolicy would then select
  # this Pod and block its egress.
  labels:
    app.kubernetes.io/name: {{ .component }}-helm-test
    app.kubernetes.io/instance: {{ .ctx.Release.Name }}
    app.kubernetes.io/component: helm-test
    app.kubernetes.io/part-of: bizassist
    app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
  annotations:
    helm.sh/hook: test
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    seccompProfile: {type: RuntimeDefault}
  {{- with .ctx.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: readyz
      image: {{ $t.image }}
      # Its own policy: the services' may be Never (kind loads their images; not this one).
      imagePullPolicy: {{ $t.pullPolicy }}
      command: [wget, -q, -O, "-", -T, "5", "http://{{ include "bizassist-lib.fullname" . }}/readyz"]
      resources:
        requests: {cpu: 10m, memory: 16Mi}
        limits: {cpu: 100m, memory: 32Mi}
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities: {drop: [ALL]}
{{- end -}}

{{/* NOTES.txt of a service chart (shown when the chart is installed on its own; the umbrella
chart prints its own). */}}
{{- define "bizassist-lib.notes" -}}
{{- $name := include "bizassist-lib.fullname" . -}}
{{ .component }} {{ .ctx.Chart.AppVersion }} is installed as {{ $name }} in namespace {{ .ctx.Release.Namespace }}.
In-cluster URL: http://{{ $name }} (Service port 80 -> container port {{ .ctx.Values.containerPort }}).
It reads its secrets ({{ join ", " .ctx.Values.secretEnv }}) from the Secret {{ include "bizassist-lib.secretName" . }}, which must exist before the install (the migration hook reads it).

Watch the rollout:   kubectl -n {{ .ctx.Release.Namespace }} rollout status deployment/{{ $name }}
Migrations (a hook): kubectl -n {{ .ctx.Release.Namespace }} logs job/{{ $name }}-migrate
{{- if .ctx.Values.helmTest.enabled }}
Check readiness through the Service: helm test {{ .ctx.Release.Name }} -n {{ .ctx.Release.Namespace }}
{{- end }}
{{- end -}}
