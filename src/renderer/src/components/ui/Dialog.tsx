import type { ReactNode } from 'react';
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { Button } from './Button';
import type { ButtonVariant } from './Button';

export interface DialogProps {
  isOpen: boolean;
  onOpenChange(open: boolean): void;
  title: ReactNode;
  children: ReactNode;
  /** Buttons at the bottom; the dialog closes only through them or Escape. */
  actions?: ReactNode;
  /** alertdialog for confirmations. */
  role?: 'dialog' | 'alertdialog';
  isDismissable?: boolean;
  className?: string;
  'data-testid'?: string;
}

/** A modal dialog: focus moves in and is trapped, Escape closes, focus returns to the trigger. */
export function Dialog({
  isOpen,
  onOpenChange,
  title,
  children,
  actions,
  role = 'dialog',
  isDismissable = true,
  className,
  ...rest
}: DialogProps) {
  return (
    <ModalOverlay
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      isDismissable={isDismissable}
      className="ui-modal-overlay"
    >
      <Modal className="ui-modal">
        <AriaDialog
          role={role}
          className={className ? `ui-dialog ${className}` : 'ui-dialog'}
          data-testid={rest['data-testid']}
        >
          <Heading slot="title" className="ui-dialog__title">
            {title}
          </Heading>
          <div className="ui-dialog__body">{children}</div>
          {actions && <div className="ui-dialog__actions">{actions}</div>}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  );
}

export interface ConfirmDialogProps {
  isOpen: boolean;
  onOpenChange(open: boolean): void;
  title: ReactNode;
  /** What will happen, restated (amounts first for money). */
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  variant?: Extract<ButtonVariant, 'primary' | 'danger'>;
  isPending?: boolean;
  onConfirm(): void;
}

/** One explicit confirm step: restates the action, Cancel has the initial focus. */
export function ConfirmDialog({
  isOpen,
  onOpenChange,
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  variant = 'primary',
  isPending,
  onConfirm,
}: ConfirmDialogProps) {
  return (
    <Dialog
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      title={title}
      role="alertdialog"
      isDismissable={!isPending}
      actions={
        <>
          <Button variant="secondary" autoFocus onPress={() => onOpenChange(false)} isDisabled={isPending}>
            {cancelLabel}
          </Button>
          <Button variant={variant} onPress={onConfirm} isPending={isPending}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
