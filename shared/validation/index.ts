// Public surface of shared/validation: spec.validation's settings and the validation Job (issue 44).
export { DEFAULT_VALIDATION_TIMEOUT_SECONDS, loadValidationSettings } from './settings.ts';
export type { LoadedValidation, ValidationJobSettings, ValidationOnFailure, ValidationSettings } from './settings.ts';
export { VALIDATION_JOB_LABELS, VALIDATION_JOB_REQUEST_ANNOTATION, VALIDATION_JOB_SELECTOR, VALIDATION_TOLERATIONS, validationJobManifest, validationJobName, validationJobStates } from './job.ts';
export type { ValidationJobState } from './job.ts';
