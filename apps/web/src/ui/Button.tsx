import { Button as AriaButton, type ButtonProps as AriaButtonProps } from 'react-aria-components';

export type Tone = 'primary' | 'secondary' | 'danger' | 'quiet';

export interface ButtonProps extends AriaButtonProps {
  tone?: Tone;
}

/** The only button: react-aria gives it keyboard, press and focus handling alike on every device. */
export function Button({ tone = 'secondary', className, ...props }: ButtonProps) {
  return <AriaButton {...props} className={`button button-${tone} ${typeof className === 'string' ? className : ''}`.trim()} />;
}
