// Converts a document to a Postman collection as Postman's importer and
// the openapi2postmanv2 CLI do (convertV2, the v2 interface), with the
// options given as JSON, and writes it to collection.json.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { convertV2 } = require("openapi-to-postmanv2");

const options = JSON.parse(process.argv[3] ?? "{}");
convertV2({ type: "string", data: readFileSync(process.argv[2], "utf8") }, options, (err, result) => {
  if (err || !result.result) {
    console.error("conversion failed:", err ?? result.reason);
    process.exit(1);
  }
  writeFileSync("collection.json", JSON.stringify(result.output[0].data));
});
