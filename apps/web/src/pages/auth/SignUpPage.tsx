import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useResetSession } from '../../session/session';
import { Button } from '../../ui/Button';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { fieldErrors, TextField } from '../../ui/fields';
import { AuthFrame } from './AuthFrame';
import { safeNext } from './next';

export function SignUpPage() {
  const [form, setForm] = useState({ organization_name: '', name: '', email: '', password: '' });
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const resetSession = useResetSession();
  const signUp = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/auth/signup', { body: form })) });
  const errors = fieldErrors(signUp.error);
  const set = (field: keyof typeof form) => (value: string) => setForm({ ...form, [field]: value });

  if (signUp.data) {
    const { tenant, user, api_key } = signUp.data.data;
    return (
      <AuthFrame title={`Welcome, ${user.name}`}>
        <p>{tenant.name} is ready. This API key lets your agent runtimes call evaluate. It is shown only now: copy it somewhere safe.</p>
        <p>
          <code className="secret">{api_key.key}</code> <CopyButton value={api_key.key} label="Copy key" />
        </p>
        <Button
          tone="primary"
          onPress={() => {
            resetSession();
            navigate(safeNext(params.get('next')), { replace: true });
          }}
        >
          Continue to the dashboard
        </Button>
      </AuthFrame>
    );
  }

  return (
    <AuthFrame title="Create an organisation">
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          signUp.mutate();
        }}
      >
        <TextField
          label="Organisation"
          isRequired
          value={form.organization_name}
          onChange={set('organization_name')}
          error={errors.organization_name}
          autoFocus
        />
        <TextField label="Your name" autoComplete="name" isRequired value={form.name} onChange={set('name')} error={errors.name} />
        <TextField
          label="E-mail"
          type="email"
          autoComplete="email"
          isRequired
          value={form.email}
          onChange={set('email')}
          error={errors.email}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={12}
          description="At least 12 characters."
          value={form.password}
          onChange={set('password')}
          error={errors.password}
        />
        <ErrorNotice error={signUp.error} />
        <Button type="submit" tone="primary" isDisabled={signUp.isPending}>
          Create organisation
        </Button>
      </Form>
      <p>
        Already have an account? <Link to={`/sign-in${params.size ? `?${params}` : ''}`}>Sign in</Link>
      </p>
    </AuthFrame>
  );
}
