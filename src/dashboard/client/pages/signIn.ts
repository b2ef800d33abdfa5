import { h } from '../dom.js';
import { signIn } from '../session.js';

/** The sign-in form: an API client's id and secret, exchanged for a token at /oauth2/token. */
export function signInPage(onSignedIn: () => void): HTMLElement {
  const clientId = h('input', { id: 'client-id', name: 'client_id', autocomplete: 'username', required: true });
  const secret = h('input', {
    id: 'client-secret',
    name: 'client_secret',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const problem = h('p', { class: 'problem', role: 'alert' });
  const form = h(
    'form',
    { class: 'sign-in' },
    h('h1', null, 'Sign in to the Tally dashboard'),
    h('p', { class: 'muted' }, 'With an API client’s credentials: the dashboard shows what that client may read.'),
    h('label', { for: 'client-id' }, 'Client id'),
    clientId,
    h('label', { for: 'client-secret' }, 'Client secret'),
    secret,
    h('button', { type: 'submit' }, 'Sign in'),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.textContent = '';
    signIn(clientId.value.trim(), secret.value).then(onSignedIn, (error: Error) => {
      problem.textContent = error.message;
    });
  });
  return form;
}
