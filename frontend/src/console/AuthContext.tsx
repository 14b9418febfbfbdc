/**
 * Who is signed in, shared by the console's guard (RequireAuth), the sign-in page and the
 * header's "Sign out". The server is asked (`GET /api/v1/auth/me/`) only when a console
 * route or the sign-in page needs to know — the public overview sends no request.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';

import type { Researcher } from '../api';
import { fetchCurrentUser, logout } from './auth';

export type AuthState =
  | { status: 'unknown' }
  | { status: 'checking' }
  | { status: 'in'; user: Researcher }
  | { status: 'out' }
  | { status: 'error'; error: Error };

export interface Auth {
  state: AuthState;
  /** Ask the server; a signed-in researcher stays shown while the answer is on its way. */
  check: () => void;
  /** After a successful sign-in (the login endpoint returns the user). */
  signedIn: (user: Researcher) => void;
  /** End the session on the server, then forget the user. */
  signOut: () => Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children, initial = { status: 'unknown' } }: { children: ReactNode; initial?: AuthState }) {
  const [state, setState] = useState<AuthState>(initial);
  // Only the newest request may set the state (a slow answer must not undo a sign-in).
  const generation = useRef(0);

  const check = useCallback(() => {
    const mine = ++generation.current;
    setState((current) => (current.status === 'in' ? current : { status: 'checking' }));
    fetchCurrentUser().then(
      (user) => {
        if (mine === generation.current) setState(user ? { status: 'in', user } : { status: 'out' });
      },
      (error: unknown) => {
        if (mine === generation.current) setState({ status: 'error', error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
  }, []);

  const signedIn = useCallback((user: Researcher) => {
    generation.current += 1;
    setState({ status: 'in', user });
  }, []);

  const signOut = useCallback(async () => {
    await logout();
    generation.current += 1;
    setState({ status: 'out' });
  }, []);

  const value = useMemo(() => ({ state, check, signedIn, signOut }), [state, check, signedIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth() needs an <AuthProvider> above it');
  return auth;
}
