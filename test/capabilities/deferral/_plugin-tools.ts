/**
 * Sixty plugin-like tools (Slack, GitHub, Notion) with descriptions and parameters in the style real MCP servers
 * ship, plus two a guest may use, for the deferral tests. Each execute echoes its name and arguments.
 */
import * as v from "valibot";
import type { PolicyClass } from "../../../src/capabilities/caller.ts";
import { type AnyTool, defineTool } from "../../../src/capabilities/tool.ts";

// name, description, parameters (a trailing "?" marks an optional one) → description
type Row = [string, string, Record<string, string>];

const SLACK: Row[] = [
  [
    "slack_list_channels",
    "List public and private channels in the Slack workspace, with member counts.",
    { limit: "Maximum number of channels to return.?", cursor: "Pagination cursor from a previous call.?" },
  ],
  [
    "slack_post_message",
    "Post a new message to a Slack channel or direct message.",
    { channel_id: "The channel to post in.", text: "Message text in Slack mrkdwn." },
  ],
  [
    "slack_reply_to_thread",
    "Reply to a specific message thread in Slack.",
    {
      channel_id: "The channel containing the thread.",
      thread_ts: "Timestamp of the parent message.",
      text: "Reply text.",
    },
  ],
  [
    "slack_add_reaction",
    "Add an emoji reaction to a Slack message.",
    {
      channel_id: "The channel containing the message.",
      timestamp: "Timestamp of the message.",
      reaction: "Emoji name without colons.",
    },
  ],
  [
    "slack_get_channel_history",
    "Get recent messages from a Slack channel.",
    { channel_id: "The channel to read.", limit: "Number of messages to return.?" },
  ],
  [
    "slack_get_thread_replies",
    "Get all replies in a Slack message thread.",
    { channel_id: "The channel containing the thread.", thread_ts: "Timestamp of the parent message." },
  ],
  [
    "slack_get_users",
    "List users in the Slack workspace with their basic profile information.",
    { limit: "Maximum number of users.?", cursor: "Pagination cursor.?" },
  ],
  [
    "slack_get_user_profile",
    "Get detailed profile information for a specific Slack user.",
    { user_id: "The user's ID." },
  ],
  [
    "slack_search_messages",
    "Search Slack messages across channels by keywords, sender or date.",
    { query: "Slack search query.", count: "Results per page.?" },
  ],
  [
    "slack_create_channel",
    "Create a new public or private Slack channel.",
    { name: "Channel name, lowercase without spaces.", is_private: "Create as a private channel.?" },
  ],
  [
    "slack_archive_channel",
    "Archive a Slack channel so it becomes read-only.",
    { channel_id: "The channel to archive." },
  ],
  [
    "slack_invite_to_channel",
    "Invite one or more users to a Slack channel.",
    { channel_id: "The channel.", users: "Comma-separated user IDs." },
  ],
  [
    "slack_set_channel_topic",
    "Set the topic shown at the top of a Slack channel.",
    { channel_id: "The channel.", topic: "New topic text." },
  ],
  [
    "slack_upload_file",
    "Upload a file to Slack and share it in channels.",
    { channels: "Comma-separated channel IDs.", filename: "Name of the file.", content: "File contents." },
  ],
  [
    "slack_schedule_message",
    "Schedule a Slack message to be sent later.",
    { channel_id: "The channel.", text: "Message text.", post_at: "Unix time to send at." },
  ],
  [
    "slack_delete_message",
    "Delete a message the bot posted in Slack.",
    { channel_id: "The channel.", ts: "Timestamp of the message." },
  ],
  [
    "slack_update_message",
    "Edit the text of a message the bot posted in Slack.",
    { channel_id: "The channel.", ts: "Timestamp of the message.", text: "New text." },
  ],
  [
    "slack_set_status",
    "Set the user's Slack status text and emoji.",
    { status_text: "Status text.", status_emoji: "Emoji, like :palm_tree:.?" },
  ],
  ["slack_list_reminders", "List reminders created by or for the Slack user.", {}],
  [
    "slack_pin_message",
    "Pin a message to a Slack channel.",
    { channel_id: "The channel.", timestamp: "Timestamp of the message." },
  ],
];

const GITHUB: Row[] = [
  [
    "github_create_pull_request",
    "Open a new pull request from a head branch into a base branch.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      title: "Pull request title.",
      head: "Branch with the changes.",
      base: "Branch to merge into.",
      body: "Description in Markdown.?",
    },
  ],
  [
    "github_list_pull_requests",
    "List pull requests in a GitHub repository, filtered by state.",
    { owner: "Repository owner.", repo: "Repository name.", state: "open, closed or all.?" },
  ],
  [
    "github_get_pull_request",
    "Get details of a specific pull request.",
    { owner: "Repository owner.", repo: "Repository name.", pull_number: "Pull request number." },
  ],
  [
    "github_merge_pull_request",
    "Merge a pull request using merge, squash or rebase.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      pull_number: "Pull request number.",
      merge_method: "merge, squash or rebase.?",
    },
  ],
  [
    "github_create_pull_request_review",
    "Submit a review on a pull request: approve, request changes or comment.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      pull_number: "Pull request number.",
      event: "APPROVE, REQUEST_CHANGES or COMMENT.",
      body: "Review text.?",
    },
  ],
  [
    "github_get_pull_request_files",
    "List the files changed in a pull request.",
    { owner: "Repository owner.", repo: "Repository name.", pull_number: "Pull request number." },
  ],
  [
    "github_create_issue",
    "Create a new issue in a GitHub repository.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      title: "Issue title.",
      body: "Issue body in Markdown.?",
      labels: "Comma-separated labels.?",
    },
  ],
  [
    "github_list_issues",
    "List issues in a GitHub repository with filters for state and labels.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      state: "open, closed or all.?",
      labels: "Comma-separated labels.?",
    },
  ],
  [
    "github_get_issue",
    "Get the details of a specific issue.",
    { owner: "Repository owner.", repo: "Repository name.", issue_number: "Issue number." },
  ],
  [
    "github_update_issue",
    "Update an existing issue's title, body, state, labels or assignees.",
    { owner: "Repository owner.", repo: "Repository name.", issue_number: "Issue number.", state: "open or closed.?" },
  ],
  [
    "github_add_issue_comment",
    "Add a comment to an existing issue or pull request.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      issue_number: "Issue or pull request number.",
      body: "Comment text.",
    },
  ],
  [
    "github_search_repositories",
    "Search for GitHub repositories by name, topic or description.",
    { query: "GitHub search syntax.", page: "Page number.?" },
  ],
  ["github_search_code", "Search for code across GitHub repositories.", { q: "Code search query." }],
  [
    "github_create_repository",
    "Create a new GitHub repository in your account.",
    { name: "Repository name.", private: "Make it private.?", description: "Repository description.?" },
  ],
  [
    "github_fork_repository",
    "Fork a GitHub repository to your account or an organization.",
    { owner: "Repository owner.", repo: "Repository name.", organization: "Fork into this organization.?" },
  ],
  [
    "github_create_branch",
    "Create a new branch in a GitHub repository.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      branch: "New branch name.",
      from_branch: "Branch to start from.?",
    },
  ],
  [
    "github_list_commits",
    "Get a list of commits of a branch in a GitHub repository.",
    { owner: "Repository owner.", repo: "Repository name.", sha: "Branch name or commit SHA.?" },
  ],
  [
    "github_get_file_contents",
    "Get the contents of a file or directory from a GitHub repository.",
    {
      owner: "Repository owner.",
      repo: "Repository name.",
      path: "Path to the file or directory.",
      branch: "Branch to read from.?",
    },
  ],
  [
    "github_push_files",
    "Push multiple files to a GitHub repository in a single commit.",
    { owner: "Repository owner.", repo: "Repository name.", branch: "Branch to push to.", message: "Commit message." },
  ],
  [
    "github_list_workflow_runs",
    "List GitHub Actions workflow runs for a repository.",
    { owner: "Repository owner.", repo: "Repository name.", status: "Filter by run status.?" },
  ],
];

const NOTION: Row[] = [
  [
    "notion_search",
    "Search Notion pages and databases by title.",
    { query: "Text to look for in titles.", filter: "page or database.?" },
  ],
  [
    "notion_create_page",
    "Create a new page in Notion under a parent page or database.",
    { parent_id: "The parent page or database.", title: "Page title.", content: "Page content in Markdown.?" },
  ],
  ["notion_retrieve_page", "Retrieve a Notion page's properties.", { page_id: "The page's ID." }],
  [
    "notion_update_page",
    "Update properties of an existing Notion page.",
    { page_id: "The page's ID.", properties: "Properties to change, as JSON." },
  ],
  ["notion_archive_page", "Archive (trash) a Notion page.", { page_id: "The page's ID." }],
  [
    "notion_retrieve_block_children",
    "Read the content blocks of a Notion page or block.",
    { block_id: "The page or block ID.", page_size: "Blocks per page.?" },
  ],
  [
    "notion_append_block_children",
    "Append paragraphs, headings or lists to a Notion page.",
    { block_id: "The page or block ID.", children: "Blocks to append, as JSON." },
  ],
  [
    "notion_update_block",
    "Update the content of a single Notion block.",
    { block_id: "The block's ID.", content: "New content, as JSON." },
  ],
  ["notion_delete_block", "Delete a block from a Notion page.", { block_id: "The block's ID." }],
  [
    "notion_query_database",
    "Query a Notion database with filters and sorts to get matching rows.",
    { database_id: "The database's ID.", filter: "Filter as JSON.?", sorts: "Sorts as JSON.?" },
  ],
  [
    "notion_create_database",
    "Create a new Notion database as a child of a page.",
    { parent_page_id: "The parent page.", title: "Database title.", properties: "Column schema as JSON." },
  ],
  [
    "notion_retrieve_database",
    "Retrieve a Notion database's schema and properties.",
    { database_id: "The database's ID." },
  ],
  [
    "notion_update_database",
    "Update a Notion database's title or column schema.",
    { database_id: "The database's ID.", title: "New title.?" },
  ],
  [
    "notion_create_database_item",
    "Add a new row (page) to a Notion database.",
    { database_id: "The database's ID.", properties: "Row values as JSON." },
  ],
  ["notion_list_users", "List all users in the Notion workspace.", { page_size: "Users per page.?" }],
  ["notion_retrieve_user", "Retrieve a Notion user by ID.", { user_id: "The user's ID." }],
  ["notion_retrieve_bot_user", "Retrieve the bot user tied to the Notion integration token.", {}],
  [
    "notion_create_comment",
    "Add a comment to a Notion page or discussion thread.",
    { page_id: "The page to comment on.", text: "Comment text." },
  ],
  [
    "notion_retrieve_comments",
    "List unresolved comments on a Notion page or block.",
    { block_id: "The page or block ID." },
  ],
  [
    "notion_retrieve_page_property",
    "Retrieve one property item of a Notion page, paginated.",
    { page_id: "The page's ID.", property_id: "The property's ID." },
  ],
];

// Plugin tools a guest may use: the memory classes are the only non-meta ones a guest gets.
const GUEST_USABLE: Row[] = [
  ["bookmarks_search", "Search saved bookmarks by title, tag or URL.", { query: "Words to look for." }],
  ["bookmarks_recent", "List the most recently saved bookmarks.", { count: "How many.?" }],
];

function fromRow([name, description, params]: Row, policy: PolicyClass): AnyTool {
  const entries: Record<string, v.GenericSchema> = {};
  for (const [key, text] of Object.entries(params)) {
    const described = v.pipe(v.string(), v.description(text.replace(/\?$/, "")));
    entries[key] = text.endsWith("?") ? v.optional(described) : described;
  }
  return defineTool({
    name,
    description,
    policy,
    readOnly: /_(list|get|search|retrieve|query)/.test(name),
    parameters: v.object(entries),
    async execute(args) {
      return `${name} ran with ${JSON.stringify(args)}`;
    },
  });
}

/** The sixty network tools: Slack, GitHub, Notion, twenty each. */
export const PLUGIN_TOOLS: readonly AnyTool[] = [...SLACK, ...GITHUB, ...NOTION].map((r) => fromRow(r, "network"));

/** Two plugin tools in the memory_read class, so a guest's surface has something deferred. */
export const GUEST_PLUGIN_TOOLS: readonly AnyTool[] = GUEST_USABLE.map((r) => fromRow(r, "memory_read"));
