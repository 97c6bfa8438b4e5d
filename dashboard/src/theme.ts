import { createTheme, type CSSVariablesResolver } from '@mantine/core';

// Shade 8 of the primary color keeps white button text and link text above
// WCAG AA contrast (the default shade 6 does not reach 4.5:1).
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
});

// Dimmed text in Mantine's default gray 6 is below 4.5:1 on white.
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7] },
  dark: {},
});
