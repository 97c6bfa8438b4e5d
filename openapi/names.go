package openapi

import (
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// tableNames are the identifiers a table contributes to the document:
// component schema names and operation ids. Client generators build
// their type and method names from them, so they read as English:
// table order_items → OrderItem, listOrderItems, getOrderItem.
type tableNames struct {
	Record   string // OrderItem: the record as returned
	Create   string // OrderItemCreate: POST body
	Replace  string // OrderItemReplace: PUT body
	Update   string // OrderItemUpdate: PATCH body
	ListItem string // OrderItemListItem: a record in a list, maybe cut down by fields
	// OrderItemWithRelations: a list item with the relations include
	// embeds; OrderItemIncluded1, 2...: an embedded record one, two...
	// levels down, with the relations it can embed in turn.
	WithRelations   string
	Included        []string
	Response        string // OrderItemResponse: envelope around one record
	ListResp        string // OrderItemListResponse: envelope around a page
	ListOp          string // listOrderItems
	GetOp           string // getOrderItem
	CreateOp        string // createOrderItem
	ReplaceOp       string // replaceOrderItem
	UpdateOp        string // updateOrderItem
	DeleteOp        string // deleteOrderItem
	HeadListOp      string // headListOrderItems: HEAD of the list
	HeadGetOp       string // headGetOrderItem: HEAD of a record
	BulkResp        string // OrderItemBulkResponse: envelope around the records of a bulk create
	BulkCreateOp    string // bulkCreateOrderItems: POST /order_items/bulk
	ExportOp        string // exportOrderItems: GET /order_items/export
	UpdateManyOp    string // updateOrderItemsByFilter: PATCH of the collection
	DeleteManyOp    string // deleteOrderItemsByFilter: DELETE of the collection
	AggregateOp     string // aggregateOrderItems
	HeadAggregateOp string // headAggregateOrderItems
	singularKey     string
}

func (n tableNames) all() []string {
	return append([]string{n.Record, n.Create, n.Replace, n.Update, n.ListItem, n.WithRelations, n.Response, n.ListResp,
		n.ListOp, n.GetOp, n.CreateOp, n.ReplaceOp, n.UpdateOp, n.DeleteOp, n.HeadListOp, n.HeadGetOp,
		n.BulkResp, n.BulkCreateOp, n.ExportOp, n.UpdateManyOp, n.DeleteManyOp, n.AggregateOp, n.HeadAggregateOp}, n.Included...)
}

func namesFor(singular, plural string) tableNames {
	included := make([]string, translate.MaxIncludeDepth-1)
	for i := range included {
		included[i] = singular + "Included" + strconv.Itoa(i+1)
	}
	return tableNames{
		WithRelations: singular + "WithRelations", Included: included,
		Record: singular, Create: singular + "Create", Replace: singular + "Replace", Update: singular + "Update",
		ListItem: singular + "ListItem", Response: singular + "Response", ListResp: singular + "ListResponse",
		ListOp: "list" + plural, GetOp: "get" + singular, CreateOp: "create" + singular,
		ReplaceOp: "replace" + singular, UpdateOp: "update" + singular, DeleteOp: "delete" + singular,
		HeadListOp: "headList" + plural, HeadGetOp: "headGet" + singular,
		BulkResp: singular + "BulkResponse", BulkCreateOp: "bulkCreate" + plural, ExportOp: "export" + plural, UpdateManyOp: "update" + plural + "ByFilter", DeleteManyOp: "delete" + plural + "ByFilter",
		AggregateOp: "aggregate" + plural, HeadAggregateOp: "headAggregate" + plural,
		singularKey: singular,
	}
}

// nameAllocator hands out names that are unique in the document; the
// fixed component names and auth operation ids are taken first, so a
// table called "errors" cannot shadow the Error envelope.
type nameAllocator struct{ taken map[string]bool }

func newNameAllocator(reserved ...string) *nameAllocator {
	a := &nameAllocator{taken: map[string]bool{}}
	for _, r := range reserved {
		a.taken[strings.ToLower(r)] = true
	}
	return a
}

// free reports whether none of names is taken. Comparison ignores case
// because some generators fold case when they turn names into files.
func (a *nameAllocator) free(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		k := strings.ToLower(n)
		if a.taken[k] || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

func (a *nameAllocator) take(names []string) {
	for _, n := range names {
		a.taken[strings.ToLower(n)] = true
	}
}

// table picks the names of one table: the singular form first, then the
// table name as written, then numbered variants.
func (a *nameAllocator) table(name string) tableNames {
	plural := pascal(name)
	candidates := []tableNames{namesFor(pascal(singularize(name)), plural), namesFor(plural, plural)}
	for _, n := range candidates {
		if a.free(n.all()) {
			a.take(n.all())
			return n
		}
	}
	for i := 2; ; i++ {
		suffix := strconv.Itoa(i)
		n := namesFor(plural+"Record"+suffix, plural+"Records"+suffix)
		if a.free(n.all()) {
			a.take(n.all())
			return n
		}
	}
}

// pascal turns a schema name (snake_case) into PascalCase: order_items →
// OrderItems, oauth2_clients → Oauth2Clients.
func pascal(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	return b.String()
}

// irregularPlurals covers common table names that the suffix rules get wrong.
var irregularPlurals = map[string]string{
	"people": "person", "children": "child", "men": "man", "women": "woman",
	"mice": "mouse", "geese": "goose", "teeth": "tooth", "feet": "foot",
	"indices": "index", "matrices": "matrix", "vertices": "vertex",
	"analyses": "analysis", "criteria": "criterion", "data": "data", "media": "media",
	"news": "news", "series": "series", "species": "species", "statuses": "status",
	"addresses": "address", "aliases": "alias", "buses": "bus", "quizzes": "quiz",
}

// singularize makes the last word of a snake_case name singular with
// English suffix rules: users → user, categories → category, boxes →
// box, order_items → order_item. A name that already looks singular
// stays as it is.
func singularize(name string) string {
	head, last := "", name
	if i := strings.LastIndexByte(name, '_'); i >= 0 {
		head, last = name[:i+1], name[i+1:]
	}
	return head + singularWord(last)
}

func singularWord(w string) string {
	if s, ok := irregularPlurals[w]; ok {
		return s
	}
	switch {
	case len(w) > 3 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zzes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case len(w) > 1 && strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

// fixedComponentNames are the component schema names that do not come
// from tables, and auth operation ids; tables never take them.
var fixedComponentNames = []string{
	"Error", "ErrorEnvelope", "ErrorBody", "ListMeta",
	"FilterInteger", "FilterNumber", "FilterBoolean", "FilterTimestamp", "FilterDate", "FilterUUID", filterString,
	"AuthSession", "AuthSessionResponse", "AuthRegistration", "AuthRegisterResponse", "LoginRequest", "RefreshRequest", "LogoutRequest", "MessageResponse",
	schema.FileSchemaName, schemaUpload, schemaUploadResp, schemaSignedURL, schemaSignedURLResp,
	schemaBulkMeta, schemaAffectedResponse, schemaAggregateMeta, schemaAggregateResponse,
	opRegister, opLogin, opRefresh, opLogout, opMe, opRealtime,
	schemaMailLink, schemaResetConfirm, schemaMailToken, schemaEmailChange, schemaEmailVerified, schemaEmailVerifResp,
	opResetRequest, opResetConfirm, opVerifyEmail, opVerifyResend, opChangeRequest, opChangeConfirm,
	schemaSignInProvider, schemaSignInProviderList, schemaSignInCode,
	opSignInProviders, opSignInWithProvider, opSignInCallback, opSignInExchange,
}

// Auth operation ids.
const (
	opRegister = "register"
	opLogin    = "login"
	opRefresh  = "refreshToken"
	opLogout   = "logout"
	opMe       = "getCurrentUser"
)

// allocateNames names every table of c in document order.
func allocateNames(c *schema.Compiled) map[string]tableNames {
	a := newNameAllocator(fixedComponentNames...)
	out := make(map[string]tableNames, len(c.Tables))
	for _, t := range c.Tables {
		out[t.Name] = a.table(t.Name)
	}
	return out
}
