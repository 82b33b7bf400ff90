import type { ComponentProps } from "react";
import { TextField } from "@/components/ui/text-field";

/**
 * The account fields of sign-in, sign-up, set-password and Settings, in one place: their types,
 * the autocomplete that lets a password manager fill the current password and offer a new one,
 * and the rule a new password follows (checked by the server, which says what to fix).
 */
type TFieldProps = Omit<ComponentProps<typeof TextField>, "type" | "label" | "value" | "onChange"> & {
  label?: string;
  value: string;
  onChange: (value: string) => void;
};

export function EmailField({ label = "Email", onChange, ...rest }: TFieldProps) {
  return <TextField label={label} name="email" type="email" autoComplete="email" inputMode="email" required onChange={(event) => onChange(event.target.value)} {...rest} />;
}

/** The password someone has now: to sign in, or to confirm a change. */
export function CurrentPasswordField({ label = "Password", onChange, ...rest }: TFieldProps) {
  return <TextField label={label} name="password" type="password" autoComplete="current-password" required onChange={(event) => onChange(event.target.value)} {...rest} />;
}

/** A password being chosen; `consequence` says what choosing it does beyond the rule. */
export function NewPasswordField({ label = "Password", passwordMinLength, consequence, onChange, ...rest }: Omit<TFieldProps, "hint"> & { passwordMinLength: number; consequence?: string }) {
  return (
    <TextField
      label={label}
      name="password"
      type="password"
      autoComplete="new-password"
      required
      hint={`At least ${passwordMinLength} characters, mixing letters with a digit or symbol.${consequence ? ` ${consequence}` : ""}`}
      onChange={(event) => onChange(event.target.value)}
      {...rest}
    />
  );
}
