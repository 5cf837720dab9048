/**
 * Fields that choose from a list. Apart from `fields.tsx` so that a page with text fields only,
 * the sign-in page first of all, does not load the collection and overlay code they need.
 */
import {
  Checkbox,
  Button as AriaButton,
  FieldError,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Text,
} from 'react-aria-components';
import type { FieldProps } from './fields';

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

/** Options from a list of values shown as they are. */
export const optionsOf = (values: readonly string[]): Option[] => values.map((value) => ({ id: value, label: value }));
