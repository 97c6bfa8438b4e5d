// Command oapicodegen drives the live API through the client oapi-codegen
// generated into ./api (client and models, its defaults): the scenario of
// the compatibility suite (docs/openapi.md), each answer read through the
// generated types. API_BASE and API_KEY say where and as whom.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"tablesmith.test/compatclients/oapicodegen/api"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("OK oapi-codegen")
}

func run(ctx context.Context) error {
	key := os.Getenv("API_KEY")
	client, err := api.NewClientWithResponses(os.Getenv("API_BASE"), api.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		return err
	}
	suffix := fmt.Sprint(time.Now().UnixNano())

	password := "correct horse battery" // write-only, so a pointer in the generated type
	user, err := client.CreateUserWithResponse(ctx, nil, api.UserCreate{
		Email: openapi_types.Email("go-" + suffix + "@example.com"), Password: &password})
	if err != nil || user.JSON201 == nil {
		return answer("create user", user, err)
	}
	authorID := user.JSON201.Data.Id

	var price api.PostCreate_Price
	if err := price.FromPostCreatePrice1("12.50"); err != nil {
		return err
	}
	status := api.PostCreateStatusPublished
	slug := "go-" + suffix
	day := openapi_types.Date{Time: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}
	ref := openapi_types.UUID{0x3f, 0x25, 0x04, 0xe0, 0x4f, 0x89, 0x41, 0xd3, 0x9a, 0x0c, 0x03, 0x05, 0xe8, 0x2c, 0x33, 0x01}
	draft := api.PostCreate{Title: "Every column", Featured: true, Slug: &slug, AuthorId: authorID, Price: &price,
		Status: &status, PublishOn: &day, ExternalRef: &ref, Metadata: map[string]any{"source": "compat"}}
	created, err := client.CreatePostWithResponse(ctx, nil, draft)
	if err != nil || created.JSON201 == nil {
		return answer("create post", created, err)
	}
	id := *created.JSON201.Data.Id

	got, err := client.GetPostWithResponse(ctx, id, nil)
	if err != nil || got.JSON200 == nil {
		return answer("get post", got, err)
	}
	p := got.JSON200.Data
	if p.Title != "Every column" || !p.Featured || p.Price == nil || *p.Price != 12.5 ||
		p.Status == nil || *p.Status != api.PostStatusPublished || p.PublishOn == nil || p.PublishOn.Time != day.Time ||
		p.ExternalRef == nil || *p.ExternalRef != ref || p.AuthorId == nil || *p.AuthorId != *authorID {
		return fmt.Errorf("get: the typed record differs from the draft: %s", got.Body)
	}

	tag, err := client.CreateTagWithResponse(ctx, nil, api.TagCreate{Label: "go-" + suffix})
	if err != nil || tag.JSON201 == nil {
		return answer("create tag", tag, err)
	}
	link, err := client.CreatePostTagWithResponse(ctx, nil, api.PostTagCreate{PostId: id, TagId: *tag.JSON201.Data.Id})
	if err != nil || link.JSON201 == nil {
		return answer("link post and tag", link, err)
	}
	comments, err := client.BulkCreateCommentsWithResponse(ctx, nil, api.BulkCreateCommentsJSONRequestBody{
		{PostId: id, Text: "first"}, {PostId: id, Text: "second"}})
	if err != nil || comments.JSON201 == nil || len(comments.JSON201.Data) != 2 {
		return answer("bulk create comments", comments, err)
	}

	featured, sort := true, "-id"
	include := []string{"author", "tags", "comments"}
	list, err := client.ListPostsWithResponse(ctx, &api.ListPostsParams{FilterSlug: &slug, FilterFeatured: &featured, Sort: &sort, Include: &include})
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		return answer("list posts with a filter", list, err)
	}
	first := list.JSON200.Data[0]
	if first.Author == nil || first.Author.Email == nil || string(*first.Author.Email) != "go-"+suffix+"@example.com" ||
		first.Tags == nil || len(*first.Tags) != 1 || *(*first.Tags)[0].Label != "go-"+suffix ||
		first.Comments == nil || len(*first.Comments) != 2 {
		return fmt.Errorf("list: the included records are not typed as sent: %s", list.Body)
	}

	title := "Patched title"
	patched, err := client.UpdatePostWithResponse(ctx, id, nil, api.PostUpdate{Title: &title})
	if err != nil || patched.JSON200 == nil || patched.JSON200.Data.Title != title {
		return answer("patch", patched, err)
	}

	bad := draft
	badSlug := "bad-" + suffix
	bad.Slug, bad.Title = &badSlug, "x"
	refused, err := client.CreatePostWithResponse(ctx, nil, bad)
	if err != nil || refused.JSON400 == nil || string(refused.JSON400.Error.Code) != "VALIDATION_ERROR" {
		return answer("a too-short title is a typed 400", refused, err)
	}

	commentID := *comments.JSON201.Data[0].Id
	removed, err := client.DeleteCommentWithResponse(ctx, commentID, nil)
	if err != nil || removed.JSON200 == nil {
		return answer("delete", removed, err)
	}
	gone, err := client.GetCommentWithResponse(ctx, commentID, nil)
	if err != nil || gone.JSON404 == nil || string(gone.JSON404.Error.Code) != "NOT_FOUND" {
		return answer("a deleted record is a typed 404", gone, err)
	}
	return nil
}

// answer says which step failed and what the server said.
func answer(step string, r interface {
	Status() string
}, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	return fmt.Errorf("%s: unexpected answer %s", step, r.Status())
}
