// The suite's openapi-typescript + openapi-fetch client: types generated
// into ./schema.ts by the Go test, calls made with openapi-fetch's
// defaults (its query serializer, its JSON body).
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";
import { apiBase, apiKey, behindValidatingProxy, check, done, post, run } from "./scenario";

type PostCreate = components["schemas"]["PostCreate"];
type ErrorBody = components["schemas"]["Error"];

async function main(): Promise<void> {
  const api = createClient<paths>({ baseUrl: apiBase, headers: { Authorization: `Bearer ${apiKey}` } });

  const user = await api.POST("/users", { body: { email: `fetch-${run}@example.com`, password: "correct horse battery", name: "Ada" } });
  check(user.response.status === 201 && user.data, "create user", user.error);
  const author = user.data.data;

  const draft: PostCreate = { ...post, slug: `fetch-${run}`, author_id: author.id };
  const created = await api.POST("/posts", { body: draft });
  check(created.response.status === 201 && created.data, "create post", created.error);
  const id: number = created.data.data.id;

  const got = await api.GET("/posts/{id}", { params: { path: { id } } });
  check(got.data, "get post", got.error);
  const p = got.data.data;
  check(p.title === post.title && p.status === "published" && p.featured === true, "get: typed columns", p);
  check(Number(p.price) === 12.5 && p.publish_on === "2026-01-02" && p.external_ref === post.external_ref, "get: decimal, date, uuid", p);
  check(typeof p.created_at === "string" && p.author_id === author.id, "get: timestamps and reference", p);

  const tag = await api.POST("/tags", { body: { label: `fetch-${run}` } });
  check(tag.data, "create tag", tag.error);
  const link = await api.POST("/post_tags", { body: { post_id: id, tag_id: tag.data.data.id } });
  check(link.data, "link post and tag", link.error);
  const comments = await api.POST("/comments/bulk", { body: [{ post_id: id, text: "first" }, { post_id: id, text: "second" }] });
  check(comments.data && comments.data.data.length === 2, "bulk create comments", comments.error);

  const list = await api.GET("/posts", {
    params: { query: { "filter[slug]": `fetch-${run}`, "filter[featured]": true, sort: "-id", include: ["author", "tags", "comments"], limit: 5 } },
  });
  check(list.data, "list posts", list.error);
  check(list.data.data.length === 1, "list: the filter", list.data.data);
  const first = list.data.data[0];
  check(first.author?.email === `fetch-${run}@example.com`, "list: include author", first);
  check(first.tags?.[0]?.label === `fetch-${run}` && first.comments?.length === 2, "list: include tags and comments", first);

  const patched = await api.PATCH("/posts/{id}", { params: { path: { id } }, body: { title: "Patched title", views: 8 } });
  check(patched.data && patched.data.data.title === "Patched title" && patched.data.data.views === 8, "patch", patched.error);

  if (behindValidatingProxy) {
    // A body the document forbids never reaches the server through Prism,
    // so the error here is one only the server can find: a taken slug.
    const taken = await api.POST("/posts", { body: draft });
    check(taken.response.status === 409, "a taken slug is a 409", taken.response.status);
    check(taken.error?.error.code === "CONFLICT", "the typed conflict", taken.error);
  } else {
    const bad = await api.POST("/posts", { body: { ...draft, slug: `bad-${run}`, title: "x" } });
    check(bad.response.status === 400, "a too-short title is a 400", bad.response.status);
    const failure: ErrorBody | undefined = bad.error;
    check(failure?.error.code === "VALIDATION_ERROR", "the typed error", failure);
  }

  const removed = await api.DELETE("/comments/{id}", { params: { path: { id: comments.data.data[0].id } } });
  check(removed.response.status === 200, "delete", removed.error);
  const gone = await api.GET("/comments/{id}", { params: { path: { id: comments.data.data[0].id } } });
  check(gone.response.status === 404 && gone.error?.error.code === "NOT_FOUND", "deleted is gone", gone.error);
  done("openapi-fetch");
}

void main();
