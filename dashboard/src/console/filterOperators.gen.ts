// Generated from translate's operator table (translate/operators.go) by
// `go generate ./translate`. Do not edit: change the table and generate
// again; translate/dashboard_test.go fails while this file is stale.
export const filterOperators = [
  {
    "field": "eq",
    "expr": "=",
    "label": "equals",
    "note": "",
    "value": "value",
    "textual": false,
    "range": false
  },
  {
    "field": "ne",
    "expr": "!=",
    "label": "is not",
    "note": "",
    "value": "value",
    "textual": false,
    "range": false
  },
  {
    "field": "gt",
    "expr": ">",
    "label": ">",
    "note": "",
    "value": "value",
    "textual": false,
    "range": true
  },
  {
    "field": "gte",
    "expr": ">=",
    "label": "≥",
    "note": "",
    "value": "value",
    "textual": false,
    "range": true
  },
  {
    "field": "lt",
    "expr": "<",
    "label": "<",
    "note": "",
    "value": "value",
    "textual": false,
    "range": true
  },
  {
    "field": "lte",
    "expr": "<=",
    "label": "≤",
    "note": "",
    "value": "value",
    "textual": false,
    "range": true
  },
  {
    "field": "like",
    "expr": "~",
    "label": "contains",
    "note": "contains, case-insensitive",
    "value": "text",
    "textual": true,
    "range": false
  },
  {
    "field": "",
    "expr": "!~",
    "label": "does not contain",
    "note": "",
    "value": "text",
    "textual": true,
    "range": false
  },
  {
    "field": "in",
    "expr": "",
    "label": "is one of (a,b)",
    "note": "",
    "value": "list",
    "textual": false,
    "range": false
  },
  {
    "field": "null",
    "expr": "",
    "label": "is null (true/false)",
    "note": "",
    "value": "boolean",
    "textual": false,
    "range": false
  }
] as const;

// The filter[column][op] operators offered on a column of each type.
export const operatorsByType: Readonly<Record<string, readonly string[]>> = {
  "boolean": [
    "eq",
    "ne",
    "in",
    "null"
  ],
  "date": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "null"
  ],
  "decimal": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "null"
  ],
  "email": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "like",
    "in",
    "null"
  ],
  "enum": [
    "eq",
    "ne",
    "like",
    "in",
    "null"
  ],
  "file": [],
  "files": [],
  "integer": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "null"
  ],
  "json": [],
  "number": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "null"
  ],
  "passthrough": [],
  "password": [],
  "text": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "like",
    "in",
    "null"
  ],
  "timestamp": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "null"
  ],
  "url": [
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "like",
    "in",
    "null"
  ],
  "uuid": [
    "eq",
    "ne",
    "in",
    "null"
  ]
};
