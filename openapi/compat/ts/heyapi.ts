// The suite's @hey-api/openapi-ts client: its SDK functions and the fetch
// client it bundles, generated into ./hey by the Go test. The credential
// is given the way its bearer scheme asks (auth), the base URL is the
// document's servers[0], which the generated client already holds.
import { client } from "./hey/client.gen";
import * as sdk from "./hey/sdk.gen";
import type { PostCreate, Post } from "./hey/types.gen";
import { apiBase, apiKey, check, done, post, run } from "./scenario";

async function main(): Promise<void> {
  check(client.getConfig().baseUrl === apiBase, "the generated client's base URL is the document's server", client.getConfig().baseUrl);
  client.setConfig({ auth: apiKey });

  const user = await sdk.createUser({ body: { email: `hey-${run}@example.com`, password: "correct horse battery", name: "Ada" } });
  check(user.response?.status === 201 && user.data, "create user", user.error);
  const author = user.data.data;

  const draft: PostCreate = { ...post, slug: `hey-${run}`, author_id: author.id };
  const created = await sdk.createPost({ body: draft });
  check(created.response?.status === 201 && created.data, "create post", created.error);
  const id = created.data.data.id;

  const got = await sdk.getPost({ path: { id } });
  check(got.data, "get post", got.error);
  const p: Post = got.data.data;
  check(p.title === post.title && p.status === "published" && p.featured === true, "get: typed columns", p);
  check(Number(p.price) === 12.5 && p.publish_on === "2026-01-02" && p.author_id === author.id, "get: decimal, date, reference", p);

  const tag = await sdk.createTag({ body: { label: `hey-${run}` } });
  check(tag.data, "create tag", tag.error);
  const link = await sdk.createPostTag({ body: { post_id: id, tag_id: tag.data.data.id } });
  check(link.data, "link post and tag", link.error);
  const comments = await sdk.bulkCreateComments({ body: [{ post_id: id, text: "first" }, { post_id: id, text: "second" }] });
  check(comments.data && comments.data.data.length === 2, "bulk create comments", comments.error);

  const list = await sdk.listPosts({ query: { "filter[slug]": `hey-${run}`, "filter[featured]": true, sort: "-id", include: ["author", "tags", "comments"] } });
  check(list.data, "list posts", list.error);
  check(list.data.data.length === 1, "list: the filter", list.data.data);
  const first = list.data.data[0];
  check(first.author?.email === `hey-${run}@example.com`, "list: include author", first);
  check(first.tags?.[0]?.label === `hey-${run}` && first.comments?.length === 2, "list: include tags and comments", first);

  const patched = await sdk.updatePost({ path: { id }, body: { title: "Patched title", views: 8 } });
  check(patched.data && patched.data.data.title === "Patched title", "patch", patched.error);

  const bad = await sdk.createPost({ body: { ...draft, slug: `bad-${run}`, title: "x" } });
  check(bad.response?.status === 400, "a too-short title is a 400", bad.response?.status);
  check(bad.error?.error.code === "VALIDATION_ERROR", "the typed error", bad.error);

  const commentId = comments.data.data[0].id;
  const removed = await sdk.deleteComment({ path: { id: commentId } });
  check(removed.response?.status === 200, "delete", removed.error);
  const gone = await sdk.getComment({ path: { id: commentId } });
  check(gone.response?.status === 404 && gone.error?.error.code === "NOT_FOUND", "deleted is gone", gone.error);
  done("@hey-api/openapi-ts");
}

void main();
