#!/usr/bin/env node
// Validates Kubernetes manifests offline against official schemas, two ways each:
//   1. ajv validators that kubernetes-models compiles from the Kubernetes OpenAPI document:
//      types, required fields, enums. They accept unknown fields (the OpenAPI document has no
//      additionalProperties: false), so also
//   2. the manifest as a typed TypeScript literal checked against kubernetes-types: excess
//      properties (unknown fields, which the API server refuses under fieldValidation=Strict),
//      wrong types, missing required fields.
// Custom resources: Volcano's batch.volcano.sh/v1alpha1 Job against its CRD (--volcano-crd,
// structural schema, unknown fields refused), each task template as a core/v1 PodTemplateSpec;
// jobset.x-k8s.io/v1alpha2 JobSet against jobset_v1alpha2.schema.json (the JobSet CRD's
// envelope, see PROVENANCE.md), each replicated Job template as a batch/v1 JobTemplateSpec.
//
// Usage: node validate_manifests.mjs --modules DIR/node_modules [--volcano-crd CRD.yaml]
//                                    [--jobset-schema SCHEMA.json] FILE.json|FILE.yaml|-...
// ("-" reads standard input, JSON or YAML.)
// Exit status: 0 every document valid, 1 some invalid, 2 usage or setup error.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

function usage(message) {
  console.error(`validate_manifests: ${message}`);
  console.error(
    "usage: node validate_manifests.mjs --modules DIR/node_modules [--volcano-crd CRD.yaml] " +
      "[--jobset-schema SCHEMA.json] FILE...",
  );
  process.exit(2);
}

const args = process.argv.slice(2);
let modules = null;
let volcanoCrd = null;
let jobsetSchema = null;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--modules") modules = args[++i];
  else if (args[i] === "--volcano-crd") volcanoCrd = args[++i];
  else if (args[i] === "--jobset-schema") jobsetSchema = args[++i];
  else files.push(args[i]);
}
if (!modules) usage("--modules is required (packaging/engines/k8s_validators.sh installs them)");
if (files.length === 0) usage("no manifest given");
modules = path.resolve(modules);
for (const name of ["kubernetes-models", "kubernetes-types", "typescript", "yaml", "ajv"]) {
  if (!fs.existsSync(path.join(modules, name))) {
    usage(`${name} is not installed under ${modules}; run packaging/engines/k8s_validators.sh`);
  }
}
const requireModule = createRequire(path.join(modules, "index.js"));
const YAML = requireModule("yaml");
const ts = requireModule("typescript");
const Ajv = requireModule("ajv").default;

async function officialValidator(schemaName) {
  const file = path.join(modules, "kubernetes-models", "_schemas", `${schemaName}.js`);
  return (await import(pathToFileURL(file).href)).validate;
}

// What each kind is checked against: the kubernetes-models schema and the kubernetes-types type.
const BUILT_IN = {
  "batch/v1 Job": { schema: "IoK8sApiBatchV1Job", module: "kubernetes-types/batch/v1", type: "Job" },
  "v1 Service": { schema: "IoK8sApiCoreV1Service", module: "kubernetes-types/core/v1", type: "Service" },
};
const POD_TEMPLATE = {
  schema: "IoK8sApiCoreV1PodTemplateSpec", module: "kubernetes-types/core/v1", type: "PodTemplateSpec",
};
const JOB_TEMPLATE = {
  schema: "IoK8sApiBatchV1JobTemplateSpec", module: "kubernetes-types/batch/v1", type: "JobTemplateSpec",
};

function ajvMessages(errors) {
  return (errors || []).map((e) => `${e.instancePath || "/"} ${e.message || e.keyword} ${JSON.stringify(e.params)}`);
}

// A CRD's structural schema as a strict JSON schema: unknown fields refused unless the CRD says
// x-kubernetes-preserve-unknown-fields; int-or-string and nullable honoured.
function strictSchema(schema) {
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-kubernetes-") || ["description", "default", "example", "nullable"].includes(key)) continue;
    if (key === "properties") {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictSchema(v)]));
    } else if (["items", "additionalProperties", "not"].includes(key) && typeof value === "object") {
      out[key] = strictSchema(value);
    } else if (["allOf", "anyOf", "oneOf"].includes(key)) {
      out[key] = value.map(strictSchema);
    } else {
      out[key] = value;
    }
  }
  if (schema["x-kubernetes-int-or-string"]) {
    delete out.type;
    out.anyOf = [{ type: "integer" }, { type: "string" }];
  }
  if (schema.nullable && typeof out.type === "string") out.type = [out.type, "null"];
  if (out.type === "object" && out.properties && out.additionalProperties === undefined &&
      schema["x-kubernetes-preserve-unknown-fields"] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const customKinds = {};
if (volcanoCrd) {
  const crd = YAML.parseAllDocuments(fs.readFileSync(volcanoCrd, "utf8"))
    .map((d) => d.toJSON())
    .find((d) => d && d.kind === "CustomResourceDefinition");
  if (!crd) usage(`${volcanoCrd} holds no CustomResourceDefinition`);
  for (const version of crd.spec.versions) {
    const schema = strictSchema(version.schema.openAPIV3Schema);
    schema.properties.metadata = { type: "object" };  // the server checks metadata as ObjectMeta
    customKinds[`${crd.spec.group}/${version.name} ${crd.spec.names.kind}`] = {
      validate: ajv.compile(schema),
      templates: (doc) => (doc.spec?.tasks || []).map((t, i) => [`spec.tasks[${i}].template`, t.template, POD_TEMPLATE]),
    };
  }
}
if (jobsetSchema) {
  const schema = JSON.parse(fs.readFileSync(jobsetSchema, "utf8"));
  customKinds["jobset.x-k8s.io/v1alpha2 JobSet"] = {
    validate: ajv.compile(schema),
    templates: (doc) =>
      (doc.spec?.replicatedJobs || []).map((r, i) => [`spec.replicatedJobs[${i}].template`, r.template, JOB_TEMPLATE]),
  };
}

// "-" is standard input. A v1 List stands for its items, as kubectl reads it.
function loadDocuments(file) {
  const text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  let documents;
  if (file.endsWith(".json")) {
    const value = JSON.parse(text);
    documents = Array.isArray(value) ? value : [value];
  } else {
    documents = YAML.parseAllDocuments(text).map((d) => {
      if (d.errors.length) throw new Error(d.errors.map(String).join("; "));
      return d.toJSON();
    }).filter((d) => d != null);
  }
  return documents.flatMap((d) => (d?.apiVersion === "v1" && d?.kind === "List" && Array.isArray(d.items) ? d.items : [d]));
}

// All TypeScript checks in one program; diagnostics are mapped back to their item.
function typeCheck(items) {
  const results = items.map(() => []);
  if (items.length === 0) return results;
  const source = path.join(path.dirname(modules), `.manifest-check-${process.pid}.ts`);
  const imports = new Map();
  const lines = [];
  const spans = [];  // [first line, line after the last, item] of each declaration
  let lineCount = 0;
  for (const [index, item] of items.entries()) {
    const key = `${item.module}#${item.type}`;
    if (!imports.has(key)) imports.set(key, `T${imports.size}`);
    const literal = JSON.stringify(item.value, null, 1);
    const height = literal.split("\n").length;
    spans.push([lineCount, lineCount + height, index]);
    lineCount += height;
    lines.push(`export const v${index}: ${imports.get(key)} = ${literal};`);
  }
  const header = [...imports].map(([key, alias]) => {
    const [module, type] = key.split("#");
    return `import type { ${type} as ${alias} } from "${module}";`;
  });
  fs.writeFileSync(source, header.join("\n") + "\n" + lines.join("\n") + "\n");
  try {
    const program = ts.createProgram([source], {
      strict: true, noEmit: true, skipLibCheck: true, types: [],
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    });
    const file = program.getSourceFile(source);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const line = d.file ? file.getLineAndCharacterOfPosition(d.start).line - header.length : -1;
      const span = spans.find(([from, to]) => line >= from && line < to);
      const message = `tsc TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
      if (span) results[span[2]].push(message);
      else results.forEach((r) => r.push(message));
    }
  } finally {
    fs.rmSync(source, { force: true });
  }
  return results;
}

const reports = [];
const typeItems = [];
for (const file of files) {
  let documents;
  try {
    documents = loadDocuments(file);
  } catch (e) {
    reports.push({ label: file, errors: [`cannot parse: ${e.message}`] });
    continue;
  }
  for (const [index, doc] of documents.entries()) {
    const key = `${doc?.apiVersion} ${doc?.kind}`;
    const report = { label: `${file}#${index} ${key} ${doc?.metadata?.name}`, errors: [] };
    reports.push(report);
    const check = async (where, value, spec) => {
      const validate = await officialValidator(spec.schema);
      if (!validate(value)) report.errors.push(...ajvMessages(validate.errors).map((m) => `${where}schema: ${m}`));
      typeItems.push({ report, where, module: spec.module, type: spec.type, value });
    };
    if (BUILT_IN[key]) {
      await check("", doc, BUILT_IN[key]);
    } else if (customKinds[key]) {
      const custom = customKinds[key];
      if (!custom.validate(doc)) report.errors.push(...ajvMessages(custom.validate.errors).map((m) => `crd: ${m}`));
      for (const [where, value, spec] of custom.templates(doc)) await check(`${where}: `, value, spec);
    } else {
      report.errors.push(`no schema for ${key} (not a kind the kubernetes scheduler writes, or its CRD was not given)`);
    }
  }
}
typeCheck(typeItems).forEach((errors, i) => typeItems[i].report.errors.push(...errors.map((e) => `${typeItems[i].where}${e}`)));

let invalid = 0;
for (const report of reports) {
  if (report.errors.length === 0) {
    console.log(`VALID   ${report.label}`);
    continue;
  }
  invalid++;
  console.log(`INVALID ${report.label}`);
  for (const error of report.errors) console.log(`  - ${error}`);
}
process.exit(invalid ? 1 : 0);
