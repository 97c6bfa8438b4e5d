export const accountKeys = {
  all: ['account'] as const,
  current: () => [...accountKeys.all, 'current'] as const,
};
