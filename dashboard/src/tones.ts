// Status colors that keep WCAG AA contrast (4.5:1) both as text on white
// and as a background under white text; several of Mantine's default shades
// for red, orange, yellow and teal do not.
export const tones = {
  success: '#1b6e3c',
  warning: '#a84a00',
  danger: '#b02525',
  info: '#1c4e9a',
  accent: '#7b2f9e',
} as const;
