import 'swagger-ui-react/swagger-ui.css';
import './swagger-overrides.css';
import { createElement, useEffect, useRef, type ComponentType } from 'react';
import SwaggerUI from 'swagger-ui-react';

interface SwaggerPanelProps {
  url: string;
  /** Security schemes to pre-authorize with the credential. */
  schemes: string[];
  credential: string | undefined;
  /** Set when the credential is the owner's dashboard session, which never goes into a curl command. */
  credentialIsSession?: boolean;
}

interface SwaggerSystem {
  preauthorizeApiKey: (scheme: string, value: string) => void;
  authActions: { logout: (schemes: string[]) => void };
}

/**
 * The project's Swagger UI. Authorize is filled in with the chosen key, so
 * Try it out and Execute work at once; the user can still change it there.
 */
export default function SwaggerPanel({ url, schemes, credential, credentialIsSession = false }: SwaggerPanelProps) {
  const system = useRef<SwaggerSystem | null>(null);
  const latest = useRef({ schemes, credential, credentialIsSession });
  latest.current = { schemes, credential, credentialIsSession };
  // Made once: Swagger UI reads its plugins when it starts.
  const plugins = useRef([formatInputs, sessionOutOfCurl(() => (latest.current.credentialIsSession ? latest.current.credential : undefined))]).current;

  const authorize = () => {
    const ui = system.current;
    if (!ui) return;
    const { schemes: names, credential: value } = latest.current;
    if (value) names.forEach((name) => ui.preauthorizeApiKey(name, value));
    else if (names.length) ui.authActions.logout(names);
  };

  useEffect(authorize, [credential, schemes]);

  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    labelFormControls(root);
    const observer = new MutationObserver(() => labelFormControls(root));
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);

  return (
    <div ref={container}>
    <SwaggerUI
      url={url}
      docExpansion="list"
      defaultModelsExpandDepth={0}
      tryItOutEnabled
      deepLinking={false}
      plugins={plugins}
      onComplete={(ui: SwaggerSystem) => {
        system.current = ui;
        authorize();
      }}
      requestInterceptor={(request) => {
        // Documents without a security scheme still get the key.
        const { schemes: names, credential: value } = latest.current;
        const headers = (request as unknown as { headers: Record<string, string> }).headers;
        if (!names.length && value && !headers.Authorization) headers.Authorization = `Bearer ${value}`;
        return request;
      }}
    />
    </div>
  );
}

type InputProps = { getComponent: (name: string) => ComponentType<InputProps> } & Record<string, unknown>;

/**
 * Swagger UI looks up an input component per type and format for the items
 * of an array parameter (filter[id][in] is an array of int64) and warns in
 * the console for each it lacks ("No component JsonSchema_integer_int64").
 * These formats take the plain text input it falls back to anyway.
 */
const FORMATTED_INPUTS = ['integer_int64', 'integer_int32', 'number_double', 'number_float', 'string_date', 'string_date-time', 'string_uuid', 'string_email', 'string_uri'];

function formatInputs() {
  const plain = (props: InputProps) => createElement(props.getComponent('JsonSchema_string'), props);
  return { components: Object.fromEntries(FORMATTED_INPUTS.map((format) => [`JsonSchema_${format}`, plain])) };
}

interface ImmutableRequest {
  getIn: (path: string[]) => unknown;
  setIn: (path: string[], value: string) => ImmutableRequest;
}

/**
 * Swagger UI shows the curl of each request it executed, headers included.
 * With the dashboard session chosen, the command says $TABLESMITH_KEY
 * instead: the session is the owner's login and never goes into code to
 * copy (docs/dashboard.md); the request itself still carries it.
 */
function sessionOutOfCurl(session: () => string | undefined) {
  const wrap = (Original: ComponentType<{ request?: ImmutableRequest }>) =>
    function CurlWithoutSession(props: { request?: ImmutableRequest }) {
      const token = session();
      const request = props.request;
      const hidden = token && request?.getIn(['headers', 'Authorization']) === `Bearer ${token}` ? request.setIn(['headers', 'Authorization'], 'Bearer $TABLESMITH_KEY') : request;
      return createElement(Original, { ...props, request: hidden });
    };
  return () => ({ wrapComponents: { curl: wrap, RequestSnippets: wrap } });
}

/**
 * Swagger UI renders some form controls (the servers list, parameter
 * inputs) without an accessible name: give each the name its layout shows.
 */
function labelFormControls(root: HTMLElement) {
  for (const control of root.querySelectorAll<HTMLElement>('select, input:not([type=hidden]), textarea')) {
    if (control.getAttribute('aria-label') || control.getAttribute('aria-labelledby')) continue;
    const label = control.closest('label') ?? (control.id ? root.querySelector(`label[for="${CSS.escape(control.id)}"]`) : null);
    const labelText = label ? [...label.childNodes].filter((n) => !n.contains(control)).map((n) => n.textContent ?? '').join(' ').trim() : '';
    if (labelText) continue;
    const name =
      (control.id === 'servers' && 'Servers') ||
      control.getAttribute('placeholder') ||
      control.getAttribute('data-name') ||
      control.closest('tr')?.querySelector('.parameter__name')?.textContent?.replace(/\*.*$/s, '').trim() ||
      control.getAttribute('title') ||
      'Value';
    control.setAttribute('aria-label', name);
  }
}
