{{- define "bizassist-lib.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
data:
  {{- include "bizassist-lib.envMap" . | trim | nindent 2 }}
{{- end -}}

{{- define "bizassist-lib.deployment" -}}
{{- $v := .ctx.Values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: server
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "bizassist-lib.serverSelectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "bizassist-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: server
      annotations:
        # A config change rolls the pods; the Secret is external, so rotate it with a rollout restart.
        checksum/config: {{ include "bizassist-lib.envMap" . | sha256sum }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "bizassist-lib.serviceAccountName" . }}
      {{- include "bizassist-lib.podSecurity" . | nindent 6 }}
      terminationGracePeriodSeconds: {{ include "bizassist-lib.terminationGracePeriodSeconds" . }}
      containers:
        - name: {{ .component }}
          image: {{ include "bizassist-lib.image" . }}
          imagePullPolicy: {{ include "bizassist-lib.pullPolicy" . }}
          args: [serve]
          ports:
            - {name: http, containerPort: {{ $v.containerPort }}, protocol: TCP}
          envFrom:
            - configMapRef: {name: {{ include "bizassist-lib.fullname" . }}}
          env:
            {{- with include "bizassist-lib.gomemlimit" . }}
            - {name: GOMEMLIMIT, value: {{ . | quote }}}
            {{- end }}
            {{- /* While Redis is away each pod limits alone, to its share of every limit; with an
            autoscaler the largest count, so no scale-out multiplies a limit. */}}
            - {name: RATELIMIT_FALLBACK_REPLICAS, value: {{ ternary $v.autoscaling.maxReplicas $v.replicas $v.autoscaling.enabled | quote }}}
            {{- include "bizassist-lib.secretEnv" . | trim | nindent 12 }}
          # Liveness and readiness start counting once /livez has answered once: up to
          # startupProbe.periodSeconds x failureThreshold for a slow start (migrations are a Job).
          startupProbe:
            httpGet: {path: /livez, port: http}
            periodSeconds: {{ $v.startupProbe.periodSeconds }}
            failureThreshold: {{ $v.startupProbe.failureThreshold }}
          livenessProbe:
            httpGet: {path: /livez, port: http}
            periodSeconds: 10
            failureThreshold: 3
          readinessProbe:
            httpGet: {path: /readyz, port: http}
            periodSeconds: 5
            failureThreshold: 2
          # The endpoints controller, kube-proxy and the ingress controller drop a terminating pod
          # a little later than it gets SIGTERM: keep serving for the drain delay first. A sleep
          # handler, not an exec: the image is distroless, with no shell or sleep binary.
          lifecycle:
            preStop:
              sleep: {seconds: {{ $v.shutdown.drainDelaySeconds }}}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
      volumes:
        - name: tmp
          emptyDir: {sizeLimit: 64Mi}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      topologySpreadConstraints:
      {{- with $v.topologySpreadConstraints }}
        {{- toYaml . | nindent 8 }}
      {{- else }}
        # Default: spread the server pods across nodes and zones when the scheduler can, never
        # leave one pending for it (ScheduleAnyway); per rollout (pod-template-hash).
        {{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
        - maxSkew: 1
          topologyKey: {{ . }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "bizassist-lib.serverSelectorLabels" $ | nindent 14 }}
          matchLabelKeys: [pod-template-hash]
        {{- end }}
      {{- end }}
{{- end -}}

{{/* Migrations run before the new pods start. The env is inlined rather than read from the
ConfigMap because pre-install hooks run before the release's ordinary objects exist. */}}
{{- define "bizassist-lib.migrationJob" -}}
{{- $v := .ctx.Values -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "bizassist-lib.fullname" . }}-migrate
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "0"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ $v.migrations.backoffLimit }}
  activeDeadlineSeconds: {{ $v.migrations.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "bizassist-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: migrate
    spec:
      restartPolicy: Never
      # No serviceAccountName: this pre-install hook runs before the release's ServiceAccount
      # exists, so it runs as the namespace's default one (no token is mounted either way).
      {{- include "bizassist-lib.podSecurity" . | nindent 6 }}
      containers:
        - name: migrate
          image: {{ include "bizassist-lib.image" . }}
          imagePullPolicy: {{ include "bizassist-lib.pullPolicy" . }}
          args: [migrate]
          env:
            {{- range $k, $val := include "bizassist-lib.envMap" . | fromYaml }}
            - {name: {{ $k }}, value: {{ $val | quote }}}
            {{- end }}
            {{- with include "bizassist-lib.gomemlimit" . }}
            - {name: GOMEMLIMIT, value: {{ . | quote }}}
            {{- end }}
            {{- include "bizassist-lib.secretEnv" . | trim | nindent 12 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
{{- end -}}

{{- define "bizassist-lib.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "bizassist-lib.serverSelectorLabels" . | nindent 4 }}
  ports:
    - {name: http, port: 80, targetPort: http, protocol: TCP}
{{- end -}}

{{- define "bizassist-lib.hpa" -}}
{{- $a := .ctx.Values.autoscaling -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "bizassist-lib.fullname" . }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: {{ $a.targetCPUUtilizationPercentage }}}
{{- end -}}

{{- define "bizassist-lib.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .ctx.Values.pdb.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "bizassist-lib.serverSelectorLabels" . | nindent 6 }}
{{- end -}}

{{- define "bizassist-lib.serviceMonitor" -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "bizassist-lib.fullname" . }}
  labels:
    {{- include "bizassist-lib.labels" . | nindent 4 }}
    {{- with include "bizassist-lib.monitoringLabels" (dict "ctx" .ctx "labels" .ctx.Values.serviceMonitor.labels) }}
    {{- . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "bizassist-lib.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: http
      path: /metrics
      interval: {{ .ctx.Values.serviceMonitor.interval }}
      # Every series carries service=<component>, the label the HTTP metrics already have and
      # the dashboards group by; honorLabels keeps the metric's own value on conflict.
      honorLabels: true
      relabelings:
        - {action: replace, targetLabel: service, replacement: {{ .component }}}
{{- end -}}
