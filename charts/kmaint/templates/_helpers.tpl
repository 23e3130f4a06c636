{{- /* Names, labels and the CRD check shared by the kmaint chart's templates. */ -}}

{{- /* <release>-kmaint, or the release name when it already contains "kmaint"; at most 63 characters. */ -}}
{{- define "kmaint.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := .Values.nameOverride | default .Chart.Name -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* Labels of every object: infra/base's app.kubernetes.io/name plus what Helm tooling expects. */ -}}
{{- define "kmaint.labels" -}}
app.kubernetes.io/name: kmaint
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- /*
Labels of the pass pods: the standard labels (kmaint.labels), operator.podLabels, and app.kubernetes.io/name=kmaint
and the component, which always win (selectors rely on them). The drain keeps kmaint's own pods by namespace and
ServiceAccount (KMAINT_SERVICE_ACCOUNT), not by these labels. Called with (dict "root" $ "component" <function>).
*/ -}}
{{- define "kmaint.podLabels" -}}
{{- $standard := include "kmaint.labels" .root | fromYaml -}}
{{- $labels := mergeOverwrite (deepCopy (.root.Values.operator.podLabels | default dict)) $standard (dict "app.kubernetes.io/component" .component) -}}
{{- toYaml $labels -}}
{{- end -}}

{{- /*
The ServiceAccount the passes run as and every binding names: operator.serviceAccount.name, else <fullname>. Not
created by the chart (create=false), it must be named: the chart binds kmaint's rights to it, and falling back to the
namespace's `default` would grant them to every pod there that names no ServiceAccount.
*/ -}}
{{- define "kmaint.serviceAccountName" -}}
{{- $sa := .Values.operator.serviceAccount -}}
{{- if and (not $sa.create) (not $sa.name) -}}
{{- fail "operator.serviceAccount.create=false needs operator.serviceAccount.name: the ServiceAccount kmaint's rights are bound to (create it first)" -}}
{{- end -}}
{{- $sa.name | default (include "kmaint.fullname" .) -}}
{{- end -}}

{{- /*
The image: <repository>/<name>:<tag>, <repository>/<name>@<digest>, or <repository>/<name>:<tag>@<digest> when both are
set. Without a repository every CronJob tick would end in ImagePullBackOff on an image nobody pushed, so the chart stops.
*/ -}}
{{- define "kmaint.image" -}}
{{- $img := .Values.operator.image -}}
{{- if not $img.repository -}}
{{- fail "operator.image.repository is not set: set it to the registry path holding kmaint's image (the image is <repository>/<name>:<tag>), e.g. --set operator.image.repository=registry.example.com" -}}
{{- end -}}
{{- if hasSuffix "/maintenance-operator" $img.repository -}}
{{- fail (printf "operator.image.repository %s is the NVIDIA maintenance operator's image: in kmaint it is the registry path in front of operator.image.name (%s); set it to where kmaint's image is" $img.repository $img.name) -}}
{{- end -}}
{{- $ref := printf "%s/%s" (trimSuffix "/" $img.repository) $img.name -}}
{{- if $img.digest -}}
{{- if $img.tag -}}
{{- printf "%s:%s@%s" $ref $img.tag $img.digest -}}
{{- else -}}
{{- printf "%s@%s" $ref $img.digest -}}
{{- end -}}
{{- else -}}
{{- printf "%s:%s" $ref ($img.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{- /*
Values the chart refuses. Keys of the NVIDIA maintenance operator's chart that mean nothing for kmaint's CronJobs: refused with the kmaint value
that does the job, so that an override file moved over does not silently lose what it asked for (docs/chart.md).
*/ -}}
{{- define "kmaint.checkValues" -}}
{{- $refused := list
  (list (hasKey .Values.operator "replicas") "operator.replicas (the NVIDIA operator's Deployment): kmaint runs CronJobs, not a Deployment; use cronJobs.functions and cronJobs.schedule")
  (list (hasKey .Values.operator "admissionController") "operator.admissionController (the NVIDIA operator's webhook): kmaint checks requests with a ValidatingAdmissionPolicy; use admissionPolicy.enabled")
  (list (hasKey .Values "webhookService") "webhookService (the NVIDIA operator's webhook Service): kmaint has no webhook; use admissionPolicy.enabled")
  (list (hasKey .Values "metricsService") "metricsService (the NVIDIA operator's metrics Service): kmaint's passes push their metrics; use metrics.pushgatewayUrl and metrics.prometheusRule")
-}}
{{- range $refused -}}
{{- if index . 0 -}}
{{- fail (printf "%s; remove it from the values" (index . 1)) -}}
{{- end -}}
{{- end -}}
{{- $fns := .Values.cronJobs.functions -}}
{{- if and (has "all" $fns) (gt (len $fns) 1) -}}
{{- fail (printf "cronJobs.functions %s: all runs every function in one CronJob; list it alone ([all]) or list the functions" (toJson $fns)) -}}
{{- end -}}
{{- end -}}

{{- /*
Helm creates crds/ only where the CRDs are absent and never updates them, so the CRDs in force may be the upstream
operator's (which prune kmaint's extension fields) or an older kmaint's. Each kmaint CRD carries the annotation
kmaint.io/crd-schema (a digest of its spec); when the cluster's copy differs from this chart's, install and upgrade stop
here with the command that fixes it. Without a cluster (helm template, helm lint) lookup finds nothing and nothing is
checked; a CRD that is absent (--skip-crds) is not checked either: creating the config then fails on its own.
*/ -}}
{{- define "kmaint.checkCrds" -}}
{{- range $path, $_ := .Files.Glob "crds/*.yaml" -}}
{{- $want := $.Files.Get $path | fromYaml -}}
{{- $live := lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" $want.metadata.name -}}
{{- if $live -}}
{{- $wantDigest := index $want.metadata.annotations "kmaint.io/crd-schema" -}}
{{- $liveDigest := index ($live.metadata.annotations | default dict) "kmaint.io/crd-schema" | default "none" -}}
{{- if ne $wantDigest $liveDigest -}}
{{- fail (printf "CustomResourceDefinition %s in the cluster is not this chart's (kmaint.io/crd-schema %s, want %s): Helm does not update CRDs, and another copy (the NVIDIA maintenance operator's, or an older kmaint's) would prune kmaint's fields. Apply the chart's CRDs, then run this command again: kubectl apply --server-side --force-conflicts -f charts/kmaint/crds/" $want.metadata.name $liveDigest $wantDigest) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
