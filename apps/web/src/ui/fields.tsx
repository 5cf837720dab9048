import type { ReactNode } from 'react';
import {
  Checkbox,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Button as AriaButton,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
} from 'react-aria-components';
import { ApiError } from '../api/client';

interface FieldProps {
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

export interface Option {
  id: string;
  label: string;
}

interface SelectFieldProps extends FieldProps {
  options: readonly Option[];
  value: string;
  onChange: (value: string) => void;
  name?: string;
  isDisabled?: boolean;
}

export function SelectField({ label, description, error, options, value, onChange, name, isDisabled }: SelectFieldProps) {
  return (
    <Select
      className="field"
      selectedKey={value}
      onSelectionChange={(key) => onChange(String(key))}
      isInvalid={Boolean(error)}
      validationBehavior="aria"
      {...(name ? { name } : {})}
      {...(isDisabled ? { isDisabled } : {})}
    >
      <Label>{label}</Label>
      <AriaButton className="select-trigger">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </AriaButton>
      {description && <Text slot="description">{description}</Text>}
      <FieldError>{error}</FieldError>
      <Popover className="popover">
        <ListBox className="listbox">
          {options.map((option) => (
            <ListBoxItem key={option.id} id={option.id} className="listbox-item">
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

export function CheckboxField({ label, value, onChange }: { label: string; value: boolean; onChange: (value: boolean) => void }) {
  return (
    <Checkbox className="checkbox" isSelected={value} onChange={onChange}>
      <span className="checkbox-box" aria-hidden="true">
        {value ? '✓' : ''}
      </span>
      {label}
    </Checkbox>
  );
}

/** The service's validation problems keyed by field name (`details.fields` of a 400). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.body?.error !== 'validation_error') return {};
  const fields = (error.body.details as { fields?: { field: string; message: string }[] } | undefined)?.fields ?? [];
  return Object.fromEntries(fields.map((problem) => [problem.field, problem.message]));
}

/** Options from a list of values shown as they are. */
export const optionsOf = (values: readonly string[]): Option[] => values.map((value) => ({ id: value, label: value }));
