import { useState } from 'react';
import { Button } from './Button';

/** Copies a value to the clipboard and says so, for screen readers too. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <Button
        onPress={async () => {
          await navigator.clipboard.writeText(value);
          setCopied(true);
        }}
      >
        {label}
      </Button>
      <span role="status" className="muted">
        {copied ? 'Copied' : ''}
      </span>
    </>
  );
}
