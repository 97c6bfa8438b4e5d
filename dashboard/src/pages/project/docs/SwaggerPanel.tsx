import 'swagger-ui-react/swagger-ui.css';
import './swagger-overrides.css';
import { useEffect, useRef } from 'react';
import SwaggerUI from 'swagger-ui-react';

interface SwaggerPanelProps {
  url: string;
  /** Security schemes to pre-authorize with the credential. */
  schemes: string[];
  credential: string | undefined;
}

interface SwaggerSystem {
  preauthorizeApiKey: (scheme: string, value: string) => void;
  authActions: { logout: (schemes: string[]) => void };
}

/**
 * The project's Swagger UI. Authorize is filled in with the chosen key, so
 * Try it out and Execute work at once; the user can still change it there.
 */
export default function SwaggerPanel({ url, schemes, credential }: SwaggerPanelProps) {
  const system = useRef<SwaggerSystem | null>(null);
  const latest = useRef({ schemes, credential });
  latest.current = { schemes, credential };

  const authorize = () => {
    const ui = system.current;
    if (!ui) return;
    const { schemes: names, credential: value } = latest.current;
    if (value) names.forEach((name) => ui.preauthorizeApiKey(name, value));
    else if (names.length) ui.authActions.logout(names);
  };

  useEffect(authorize, [credential, schemes]);

  return (
    <SwaggerUI
      url={url}
      docExpansion="list"
      defaultModelsExpandDepth={0}
      tryItOutEnabled
      deepLinking={false}
      onComplete={(ui: SwaggerSystem) => {
        system.current = ui;
        authorize();
      }}
      requestInterceptor={(request: Request & { headers: Record<string, string> }) => {
        // Documents without a security scheme still get the key.
        const { schemes: names, credential: value } = latest.current;
        if (!names.length && value && !request.headers.Authorization) request.headers.Authorization = `Bearer ${value}`;
        return request;
      }}
    />
  );
}
