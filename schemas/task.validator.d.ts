import type { ValidateFunction } from 'ajv';
declare const validate: ValidateFunction;
export = validate;
