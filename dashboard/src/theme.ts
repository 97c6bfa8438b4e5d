import {
  Anchor,
  Modal,
  Notification,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  parseThemeColor,
  type CSSVariablesResolver,
  type VariantColorsResolver,
} from '@mantine/core';
import { tones } from './tones';

// Light, outline and subtle variants (alerts, badges, subtle buttons) draw
// their text in a mid shade that is below WCAG AA contrast for several
// colors: use a darkened shade 9 instead.
const variantColorResolver: VariantColorsResolver = (input) => {
  const defaults = defaultVariantColorsResolver(input);
  if (!['light', 'outline', 'subtle'].includes(input.variant)) return defaults;
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || !parsed.color) return defaults;
  const shades = input.theme.colors[parsed.color];
  if (!shades) return defaults;
  const neutral = parsed.color === 'gray' || parsed.color === 'dark';
  const text = neutral ? input.theme.colors.gray[8] : darken(shades[9], 0.3);
  return {
    ...defaults,
    color: text,
    border: input.variant === 'outline' ? `1px solid ${text}` : defaults.border,
  };
};

// Shade 8 of the primary color keeps white button text and link text above
// WCAG AA contrast (the default shade 6 does not reach 4.5:1).
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  variantColorResolver,
  components: {
    // Links inside text must stand out by more than color (WCAG 1.4.1).
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss notification' } } }),
  },
});

// Dimmed text (gray 6) and error text (red 6) are below 4.5:1 on white.
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7], '--mantine-color-error': tones.danger },
  dark: {},
});
