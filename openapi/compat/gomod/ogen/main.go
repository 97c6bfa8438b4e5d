// Command ogen drives the live API through the client ogen generated into
// ./api (its defaults): the scenario of the compatibility suite
// (docs/openapi.md), each answer a typed value per status. API_BASE and
// API_KEY say where and as whom.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"

	"tablesmith.test/compatclients/ogen/api"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("OK ogen")
}

// credential gives the key for either of the document's schemes.
type credential string

func (c credential) BearerAuth(context.Context, api.OperationName) (api.BearerAuth, error) {
	return api.BearerAuth{Token: string(c)}, nil
}

func (c credential) AccessTokenQuery(context.Context, api.OperationName) (api.AccessTokenQuery, error) {
	return api.AccessTokenQuery{APIKey: string(c)}, nil
}

func run(ctx context.Context) error {
	client, err := api.NewClient(os.Getenv("API_BASE"), credential(os.Getenv("API_KEY")))
	if err != nil {
		return err
	}
	suffix := fmt.Sprint(time.Now().UnixNano())

	userRes, err := client.CreateUser(ctx, &api.UserCreate{Email: "ogen-" + suffix + "@example.com", Password: "correct horse battery"}, api.CreateUserParams{})
	user, ok := userRes.(*api.CreateUserCreatedHeaders)
	if err != nil || !ok {
		return fmt.Errorf("create user: %T %v", userRes, err)
	}
	authorID := user.Response.Data.ID

	slug := "ogen-" + suffix
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ref := uuid.MustParse("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	draft := api.PostCreate{Title: "Every column", Featured: true, Slug: api.NewOptNilString(slug),
		AuthorID: api.NewOptNilInt64(authorID), Price: api.NewOptPostCreatePrice(api.NewStringPostCreatePrice("12.50")),
		Status: api.NewOptNilPostCreateStatus(api.PostCreateStatusPublished), PublishOn: api.NewOptNilDate(day),
		ExternalRef: api.NewOptNilUUID(ref), Metadata: []byte(`{"source":"compat"}`)}
	createdRes, err := client.CreatePost(ctx, &draft, api.CreatePostParams{})
	created, ok := createdRes.(*api.CreatePostCreatedHeaders)
	if err != nil || !ok {
		return fmt.Errorf("create post: %T %v", createdRes, err)
	}
	id := created.Response.Data.ID

	gotRes, err := client.GetPost(ctx, api.GetPostParams{ID: id})
	got, ok := gotRes.(*api.GetPostOKHeaders)
	if err != nil || !ok {
		return fmt.Errorf("get post: %T %v", gotRes, err)
	}
	p := got.Response.Data
	if p.Title != "Every column" || !p.Featured || p.Price.Null || p.Price.Value != 12.5 ||
		p.Status.Null || p.Status.Value != api.PostStatusPublished || p.PublishOn.Null || !p.PublishOn.Value.Equal(day) ||
		p.ExternalRef.Null || p.ExternalRef.Value != ref || p.AuthorID.Null || p.AuthorID.Value != authorID {
		return fmt.Errorf("get: the typed record differs from the draft: %+v", p)
	}

	tagRes, err := client.CreateTag(ctx, &api.TagCreate{Label: "ogen-" + suffix}, api.CreateTagParams{})
	tag, ok := tagRes.(*api.CreateTagCreatedHeaders)
	if err != nil || !ok {
		return fmt.Errorf("create tag: %T %v", tagRes, err)
	}
	linkRes, err := client.CreatePostTag(ctx, &api.PostTagCreate{PostID: id, TagID: tag.Response.Data.ID}, api.CreatePostTagParams{})
	if _, ok := linkRes.(*api.PostTagResponseHeaders); err != nil || !ok {
		return fmt.Errorf("link post and tag: %T %v", linkRes, err)
	}
	commentsRes, err := client.BulkCreateComments(ctx, []api.CommentCreate{{PostID: id, Text: "first"}, {PostID: id, Text: "second"}}, api.BulkCreateCommentsParams{})
	comments, ok := commentsRes.(*api.CommentBulkResponseHeaders)
	if err != nil || !ok || len(comments.Response.Data) != 2 {
		return fmt.Errorf("bulk create comments: %T %v", commentsRes, err)
	}

	listRes, err := client.ListPosts(ctx, api.ListPostsParams{FilterSlug: api.NewOptFilterString(api.FilterString(slug)),
		FilterFeatured: api.NewOptFilterBoolean(true), Sort: api.NewOptString("-id"), Include: []string{"author", "tags", "comments"}})
	list, ok := listRes.(*api.PostListResponseHeaders)
	if err != nil || !ok || len(list.Response.Data) != 1 {
		return fmt.Errorf("list posts with a filter: %T %v", listRes, err)
	}
	first := list.Response.Data[0]
	author, _ := first.Author.Get()
	if author.Email.Value != "ogen-"+suffix+"@example.com" || len(first.Tags) != 1 ||
		first.Tags[0].Label.Value != "ogen-"+suffix || len(first.Comments) != 2 {
		return fmt.Errorf("list: the included records are not typed as sent: %+v", first)
	}

	patchedRes, err := client.UpdatePost(ctx, &api.PostUpdate{Title: api.NewOptString("Patched title")}, api.UpdatePostParams{ID: id})
	patched, ok := patchedRes.(*api.PostResponseHeaders)
	if err != nil || !ok || patched.Response.Data.Title != "Patched title" {
		return fmt.Errorf("patch: %T %v", patchedRes, err)
	}

	bad := draft
	bad.Slug, bad.Title = api.NewOptNilString("bad-"+suffix), "x"
	refusedRes, err := client.CreatePost(ctx, &bad, api.CreatePostParams{})
	refused, ok := refusedRes.(*api.CreatePostBadRequest)
	if err != nil || !ok || refused.Error.Code != api.ErrorErrorCodeVALIDATIONERROR {
		return fmt.Errorf("a too-short title is a typed 400: %T %v", refusedRes, err)
	}

	commentID := comments.Response.Data[0].ID
	removedRes, err := client.DeleteComment(ctx, api.DeleteCommentParams{ID: commentID})
	if _, ok := removedRes.(*api.ReplaceCommentOKHeaders); err != nil || !ok {
		return fmt.Errorf("delete: %T %v", removedRes, err)
	}
	goneRes, err := client.GetComment(ctx, api.GetCommentParams{ID: commentID})
	gone, ok := goneRes.(*api.GetCommentNotFound)
	if err != nil || !ok || gone.Error.Code != api.ErrorErrorCodeNOTFOUND {
		return fmt.Errorf("a deleted record is a typed 404: %T %v", goneRes, err)
	}
	return nil
}
