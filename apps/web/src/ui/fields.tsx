import type { ReactNode } from 'react';
import {
  FieldError,
  Input,
  Label,
  Text,
  TextArea,
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
} from 'react-aria-components';
import { ApiError } from '../api/client';

export interface FieldProps {
  label: string;
  description?: ReactNode;
  /** The service's complaint about this field, shown under it. */
  error?: string | undefined;
}

type TextFieldProps = FieldProps & Omit<AriaTextFieldProps, 'children' | 'isInvalid'> & { multiline?: boolean; rows?: number };

export function TextField({ label, description, error, multiline, rows = 4, className, ...props }: TextFieldProps) {
  return (
    <AriaTextField {...props} isInvalid={Boolean(error)} validationBehavior="aria" className={`field ${className ?? ''}`.trim()}>
      <Label>{label}</Label>
      {multiline ? <TextArea rows={rows} /> : <Input />}
      {description && <Text slot="description">{description}</Text>}
      <FieldError>{error}</FieldError>
    </AriaTextField>
  );
}

/** The service's validation problems keyed by field name (`details.fields` of a 400). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.body?.error !== 'validation_error') return {};
  const fields = (error.body.details as { fields?: { field: string; message: string }[] } | undefined)?.fields ?? [];
  return Object.fromEntries(fields.map((problem) => [problem.field, problem.message]));
}

/** An optional number as a text field holds it: empty for null. */
export const optionalNumberText = (value: number | null | undefined) => (value == null ? '' : String(value));

/** What an optional number's text field says: null when left empty. */
export const optionalNumberOf = (text: string) => (text.trim() ? Number(text) : null);
