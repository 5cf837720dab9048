import { type ReactNode, useState } from 'react';
import { Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { Button, type Tone } from './Button';
import { ErrorNotice } from './ErrorNotice';

interface ActionDialogProps {
  /** The button that opens the dialog. */
  trigger: string;
  triggerTone?: Tone;
  title: string;
  /** What the action does, in a sentence. */
  children?: ReactNode;
  confirm: string;
  confirmTone?: Tone;
  /** Runs the action; the dialog closes when it resolves and shows the error when it throws. */
  onConfirm: () => Promise<unknown>;
  isDisabled?: boolean;
}

/** A confirmation for anything that changes state in a way worth a second look. */
export function ActionDialog({
  trigger,
  triggerTone,
  title,
  children,
  confirm,
  confirmTone = 'primary',
  onConfirm,
  isDisabled,
}: ActionDialogProps) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Button tone={triggerTone ?? 'secondary'} {...(isDisabled ? { isDisabled } : {})}>
        {trigger}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <form
                onSubmit={async (event) => {
                  event.preventDefault();
                  setBusy(true);
                  setError(null);
                  try {
                    await onConfirm();
                    close();
                  } catch (failure) {
                    setError(failure);
                  } finally {
                    setBusy(false);
                  }
                }}
              >
                <Heading slot="title">{title}</Heading>
                {children}
                <ErrorNotice error={error} />
                <div className="actions">
                  <Button onPress={close}>Cancel</Button>
                  <Button type="submit" tone={confirmTone} isDisabled={busy}>
                    {confirm}
                  </Button>
                </div>
              </form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
