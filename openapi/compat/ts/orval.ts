// The suite's orval client (fetch): one function per operation, answers
// typed by status. Generated into ./orval/api.ts by the Go test.
import * as api from "./orval/api";
import { apiKey, check, done, post, run } from "./scenario";

const auth = { headers: { Authorization: `Bearer ${apiKey}` } };

async function main(): Promise<void> {
  const user = await api.createUser({ email: `orval-${run}@example.com`, password: "correct horse battery", name: "Ada" }, undefined, auth);
  check(user.status === 201, "create user", user.data);
  const author = user.data.data;

  const draft: api.PostCreate = { ...post, slug: `orval-${run}`, author_id: author.id };
  const created = await api.createPost(draft, undefined, auth);
  check(created.status === 201, "create post", created.data);
  const id = created.data.data.id;

  const got = await api.getPost(id, undefined, auth);
  check(got.status === 200, "get post", got.data);
  const p: api.Post = got.data.data;
  check(p.title === post.title && p.status === "published" && p.featured === true, "get: typed columns", p);
  check(Number(p.price) === 12.5 && p.publish_on === "2026-01-02" && p.author_id === author.id, "get: decimal, date, reference", p);

  const tag = await api.createTag({ label: `orval-${run}` }, undefined, auth);
  check(tag.status === 201, "create tag", tag.data);
  const link = await api.createPostTag({ post_id: id, tag_id: tag.data.data.id }, auth);
  check(link.status === 201, "link post and tag", link.data);
  const comments = await api.bulkCreateComments([{ post_id: id, text: "first" }, { post_id: id, text: "second" }], auth);
  check(comments.status === 201 && comments.data.data.length === 2, "bulk create comments", comments.data);

  const list = await api.listPosts({ "filter[slug]": `orval-${run}`, "filter[featured]": true, sort: "-id", include: ["author", "tags", "comments"] }, auth);
  check(list.status === 200, "list posts", list.data);
  check(list.data.data.length === 1, "list: the filter", list.data.data);
  const first = list.data.data[0];
  check(first.author?.email === `orval-${run}@example.com`, "list: include author", first);
  check(first.tags?.[0]?.label === `orval-${run}` && first.comments?.length === 2, "list: include tags and comments", first);

  const patched = await api.updatePost(id, { title: "Patched title", views: 8 }, auth);
  check(patched.status === 200 && patched.data.data.title === "Patched title", "patch", patched.data);

  const bad = await api.createPost({ ...draft, slug: `bad-${run}`, title: "x" }, undefined, auth);
  check(bad.status === 400, "a too-short title is a 400", bad.status);
  check(bad.data.error.code === "VALIDATION_ERROR", "the typed error", bad.data);

  const commentId = comments.data.data[0].id;
  const removed = await api.deleteComment(commentId, auth);
  check(removed.status === 200, "delete", removed.data);
  const gone = await api.getComment(commentId, undefined, auth);
  check(gone.status === 404 && gone.data.error.code === "NOT_FOUND", "deleted is gone", gone.data);
  done("orval");
}

void main();
