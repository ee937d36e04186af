{{/* Names and labels. */}}
{{- define "truthlens.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "truthlens.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "truthlens.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "truthlens.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "truthlens.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "truthlens.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels; call with (dict "ctx" $ "component" "web"). */}}
{{- define "truthlens.selectorLabels" -}}
app.kubernetes.io/name: {{ include "truthlens.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "truthlens.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "truthlens.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "truthlens.secretName" -}}
{{- default (printf "%s-secrets" (include "truthlens.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "truthlens.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "truthlens.cudaImage" -}}
{{- printf "%s:%s" .Values.cudaImage.repository (default (printf "%s-cuda" .Chart.AppVersion) .Values.cudaImage.tag) -}}
{{- end -}}

{{/* Settings every process reads: the ConfigMap, the four secrets, extra env. */}}
{{- define "truthlens.envFrom" -}}
- configMapRef:
    name: {{ include "truthlens.fullname" . }}-config
- secretRef:
    name: {{ include "truthlens.secretName" . }}
{{- end -}}

{{/* Pod-level pieces shared by every workload. */}}
{{- define "truthlens.podSpecCommon" -}}
serviceAccountName: {{ include "truthlens.serviceAccountName" . }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{- define "truthlens.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end -}}

{{- define "truthlens.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* Pod annotations that roll the pods when settings change. */}}
{{- define "truthlens.configChecksum" -}}
checksum/config: {{ toYaml .Values.config | sha256sum }}
checksum/secrets: {{ toYaml .Values.secrets | sha256sum }}
{{- end -}}

{{/* A Celery worker container; call with (dict "ctx" $ "name" "mitigate" "queues" "mitigate_interactive,mitigate,webhooks" "concurrency" 16). */}}
{{- define "truthlens.workerArgs" -}}
- celery
- -A
- workers
- worker
- -Q
- {{ .queues }}
- -n
- {{ printf "%s@%%h" .name }}
- --concurrency
- {{ .concurrency | quote }}
- --loglevel
- INFO
{{- end -}}

{{/* Common labels plus the component; call with (dict "ctx" $ "component" "web"). */}}
{{- define "truthlens.componentLabels" -}}
{{ include "truthlens.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}
