import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useResetSession } from '../../session/session';
import { Button } from '../../ui/Button';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { TextField } from '../../ui/fields';
import { AuthFrame } from './AuthFrame';
import { safeNext } from './next';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const resetSession = useResetSession();
  const signIn = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/auth/login', { body: { email, password } })),
    onSuccess: () => {
      resetSession();
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });

  return (
    <AuthFrame title="Sign in">
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.mutate();
        }}
      >
        <TextField label="E-mail" type="email" autoComplete="email" isRequired value={email} onChange={setEmail} autoFocus />
        <TextField label="Password" type="password" autoComplete="current-password" isRequired value={password} onChange={setPassword} />
        <ErrorNotice error={signIn.error} />
        <Button type="submit" tone="primary" isDisabled={signIn.isPending}>
          Sign in
        </Button>
      </Form>
      <p>
        New here? <Link to={`/sign-up${params.size ? `?${params}` : ''}`}>Create an organisation</Link>
      </p>
    </AuthFrame>
  );
}
