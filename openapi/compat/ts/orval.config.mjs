// orval's fetch client with its defaults; the one setting is where the
// API is, taken from the document's servers[0] (orval's own option).
export default {
  api: {
    input: "./openapi.json",
    output: { target: "./orval/api.ts", client: "fetch", baseUrl: { getBaseUrlFromSpecification: true } },
  },
};
