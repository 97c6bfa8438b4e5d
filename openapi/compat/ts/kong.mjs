// Converts a document to a Kong declarative config with openapi-2-kong's
// defaults and prints it as JSON (the Go test reads it).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { generateFromString } = require("openapi-2-kong");

const result = await generateFromString(readFileSync(process.argv[2], "utf8"), "kong-declarative-config");
process.stdout.write(JSON.stringify(result.documents[0]));
