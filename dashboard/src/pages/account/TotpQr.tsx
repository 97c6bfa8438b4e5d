import encodeQR from 'qr';
import { useMemo } from 'react';

interface TotpQrProps {
  /** The otpauth:// URL an authenticator app scans. */
  url: string;
  size?: number;
}

/** The enrolment's QR code, drawn here as SVG squares: the secret never leaves the page. */
export function TotpQr({ url, size = 184 }: TotpQrProps) {
  const cells = useMemo(() => encodeQR(url, 'raw', { ecc: 'medium', border: 2 }), [url]);
  const n = cells.length;
  const path = cells.flatMap((row, y) => row.map((on, x) => (on ? `M${x} ${y}h1v1h-1z` : ''))).join('');
  return (
    <svg
      role="img"
      aria-label="QR code to scan with your authenticator app"
      data-testid="totp-qr"
      width={size}
      height={size}
      viewBox={`0 0 ${n} ${n}`}
      shapeRendering="crispEdges"
      style={{ background: 'white', borderRadius: 4 }}
    >
      <path d={path} fill="black" />
    </svg>
  );
}
