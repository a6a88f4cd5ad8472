// The search page: plain JavaScript against the service's own API (POST /search, GET /jobs/{id},
// POST /match). No framework, no build step, nothing loaded from elsewhere. Scraped text is
// only ever set as textContent (never as HTML): postings are untrusted data.
"use strict";

const $ = (selector) => document.querySelector(selector);
let token = sessionStorage.getItem("jobpipe-token") || "";

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

class ApiError extends Error {}

async function api(method, path, body) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = "Bearer " + token;
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (response.status === 401) {
    $("#token-box").hidden = false;
    throw new ApiError("this service needs a token (enter it above)");
  }
  if (!response.ok) {
    const message = (data && (data.message || (typeof data.detail === "string" ? data.detail : null))) || response.statusText;
    throw new ApiError(message + " (HTTP " + response.status + ")");
  }
  return data;
}

function filters() {
  const out = {};
  const city = $("#city").value.trim();
  if (city) out.city = city;
  if ($("#job-type").value) out.job_type = $("#job-type").value;
  if ($("#remote").value) out.remote = $("#remote").value === "true";
  const amount = parseFloat($("#salary").value);
  if (!Number.isNaN(amount) && amount > 0) {
    out.salary_min = $("#period").value === "month" ? amount * 12 : amount;   // the filter is annual
    out.currency = $("#currency").value;
  }
  if ($("#fresh").value) out.posted_within_days = parseInt($("#fresh").value, 10);
  if ($("#posted-from").value) out.posted_from = $("#posted-from").value;     // YYYY-MM-DD, as the filter takes it
  if ($("#posted-until").value) out.posted_until = $("#posted-until").value;
  return out;
}

function number(value) {
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: value < 100 ? 2 : 0 });
}

function salaryText(salary) {
  if (!salary || (salary.min == null && salary.max == null)) {
    return salary && salary.negotiable ? "pay negotiable" : "pay not stated";
  }
  let amount;
  if (salary.min != null && salary.max != null && salary.min !== salary.max) amount = number(salary.min) + "–" + number(salary.max);
  else if (salary.min != null && salary.max == null) amount = "from " + number(salary.min);
  else if (salary.min == null) amount = "up to " + number(salary.max);
  else amount = number(salary.min);
  let text = amount + (salary.currency ? " " + salary.currency : "") + (salary.period ? " / " + salary.period : "");
  if (salary.months_per_year) text += " ×" + salary.months_per_year;
  return text;
}

function setStatus(node, message, isError) {
  node.textContent = message || "";
  node.classList.toggle("error", Boolean(isError));
}

const FIELD_NAMES = { city: "city", job_type: "type", remote: "remote", salary_min: "pay ≥", posted_within_days: "posted within",
                      posted_from: "posted from", posted_until: "posted until", seniority: "seniority" };

function renderUnderstood(body) {
  const box = $("#understood");
  box.replaceChildren();
  const understood = body.understood || {};
  const applied = new Set(body.auto_filters || []);
  const chips = [];
  for (const [name, label] of Object.entries(FIELD_NAMES)) {
    const item = understood[name];
    if (!item) continue;
    let value = item.value;
    if (name === "remote") value = value ? "fully remote" : "not remote";
    if (name === "salary_min") {
      value = number(value) + " " + ((understood.currency || {}).value || "") + " / " + ((understood.period || {}).value || "?");
    }
    if (name === "posted_within_days") value = value + (value === 1 ? " day" : " days");
    if (name === "seniority" && (understood.seniority_levels || []).length > 1) value = understood.seniority_levels.join(" / ");
    chips.push(el("span", { class: "chip" + (applied.has(name) ? " applied" : ""), "data-field": name,
                            title: applied.has(name) ? "applied as a filter" : "read, not applied" },
                  el("b", { text: label + " " }), value, " «" + item.text + "»", applied.has(name) ? " ✓" : ""));
  }
  for (const skill of understood.skills || []) {
    chips.push(el("span", { class: "chip", "data-field": "skill" }, el("b", { text: "skill " }), skill.value));
  }
  for (const note of understood.notes || []) chips.push(el("span", { class: "chip note", text: note }));
  box.hidden = chips.length === 0;
  if (chips.length) box.append("Read from your question: ", ...chips);
}

function scoreParts(hit) {
  const parts = [el("span", { text: "score " + hit.score.toFixed(4) })];
  if (hit.vector_rank) parts.push(el("span", { text: "semantic #" + hit.vector_rank
    + (hit.vector_similarity != null ? " (similarity " + hit.vector_similarity.toFixed(3) + ")" : "") }));
  if (hit.keyword_rank) parts.push(el("span", { text: "keyword #" + hit.keyword_rank
    + (hit.keyword_score != null ? " (" + hit.keyword_score.toFixed(2) + ")" : "") }));
  if (hit.query_skills_held && hit.query_skills_held.length)
    parts.push(el("span", { text: "lists " + hit.query_skills_held.join(", ") }));
  if (hit.query_seniority_held) parts.push(el("span", { text: hit.query_seniority_held + " level" }));
  if (hit.query_constraints_met && hit.query_constraints_met.length)
    parts.push(el("span", { text: "meets " + hit.query_constraints_met.join(", ").replace(/_/g, " ") }));
  if (hit.rerank_score != null) parts.push(el("span", { text: "rerank " + hit.rerank_score.toFixed(3) }));
  return el("div", { class: "parts" }, ...parts);
}

function jobCard(hit, extra) {
  const link = hit.url ? el("a", { href: hit.url, target: "_blank", rel: "noopener noreferrer nofollow", class: "out",
                                   text: "posting ↗" }) : null;
  return el("li", { class: "result", "data-job-id": hit.job_id },
    el("h3", {}, el("a", { class: "title", tabindex: "0", text: hit.title, onclick: () => openJob(hit.job_id),
                           onkeydown: (e) => { if (e.key === "Enter") openJob(hit.job_id); } })),
    el("div", { class: "meta" },
       el("span", { class: "company", text: hit.company || "company not stated" }),
       el("span", { class: "city", text: (hit.cities || []).join(", ") || "location not stated" }),
       el("span", { class: "salary", text: salaryText(hit.salary) }),
       hit.posted_at ? el("span", { text: "posted " + hit.posted_at.slice(0, 10) }) : null,
       link ? el("span", {}, link) : null),
    extra);
}

async function runSearch(event) {
  if (event) event.preventDefault();
  const query = $("#q").value.trim();
  if (!query) return;
  const body = Object.assign({ query, top_k: 20, auto_filters: $("#auto").checked }, filters());
  if (body.posted_from && body.posted_until && body.posted_from > body.posted_until) {
    // said here, as the service would say it, without asking it for an answer that cannot exist
    setStatus($("#status"), "posted_from " + body.posted_from + " is after posted_until " + body.posted_until
              + ": no posting can match", true);
    return;
  }
  setStatus($("#status"), "searching…");
  try {
    const data = await api("POST", "/search", body);
    renderUnderstood(data);
    const list = $("#results");
    list.replaceChildren(...data.results.map((hit) => jobCard(hit, scoreParts(hit))));
    const notes = (data.notes || []).length ? " · " + data.notes.join("; ") : "";
    const rerank = data.rerank && data.rerank.applied ? " · reranked by " + data.rerank.model : "";
    setStatus($("#status"), data.results.length + " jobs (" + data.mode + ")" + rerank + notes);
  } catch (err) {
    setStatus($("#status"), err.message, true);
  }
}

function field(list, name, value) {
  if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) return;
  list.append(el("dt", { text: name }), el("dd", { text: Array.isArray(value) ? value.join(", ") : String(value) }));
}

async function openJob(jobId) {
  const panel = $("#detail");
  const body = $("#detail-body");
  panel.hidden = false;
  body.replaceChildren(el("p", { text: "loading…" }));
  try {
    const job = await api("GET", "/jobs/" + encodeURIComponent(jobId));
    const facts = el("dl", {});
    field(facts, "company", job.company);
    field(facts, "cities", job.cities);
    field(facts, "location", job.location_raw);
    field(facts, "remote", job.remote);
    field(facts, "type", job.job_type);
    field(facts, "seniority", job.seniority);
    field(facts, "pay", salaryText(job.salary));
    field(facts, "skills", job.skills);
    field(facts, "posted", job.posted_at && job.posted_at.slice(0, 10));
    field(facts, "status", job.status);
    field(facts, "source", job.source + " / " + job.external_id);
    body.replaceChildren(
      el("h2", { text: job.title }),
      job.url ? el("p", {}, el("a", { href: job.url, target: "_blank", rel: "noopener noreferrer nofollow",
                                      text: "open the posting ↗" })) : null,
      facts,
      el("div", { class: "description", text: job.description_text || "(no description)" }));
  } catch (err) {
    body.replaceChildren(el("p", { class: "error", text: err.message }));
  }
}

async function runMatch() {
  const resume = $("#resume").value.trim();
  if (!resume) { setStatus($("#match-status"), "paste a resume first", true); return; }
  setStatus($("#match-status"), "matching…");
  try {
    const data = await api("POST", "/match", Object.assign({ resume_text: resume, top_k: 10 }, filters()));
    const skills = $("#candidate-skills");
    skills.hidden = false;
    skills.replaceChildren("Skills found in the resume: ",
      ...(data.candidate_skills.length ? data.candidate_skills.map((s) => el("span", { class: "chip", text: s }))
                                       : ["none recognized"]));
    $("#matches").replaceChildren(...data.results.map((hit) => jobCard(hit, el("div", {},
      el("div", { class: "parts" },
         el("span", { text: "match " + hit.fused_score.toFixed(3) }),
         el("span", { text: "similarity " + hit.vector_similarity.toFixed(3) }),
         el("span", { text: "skills " + Math.round(hit.skill_overlap * 100) + "%" })),
      el("div", { class: "skills" },
         el("span", { class: "has", text: "has: " + (hit.matched_skills.join(", ") || "–") }), " · ",
         el("span", { class: "lacks", text: "missing: " + (hit.missing_skills.join(", ") || "–") }))))));
    setStatus($("#match-status"), data.results.length + " matching jobs");
  } catch (err) {
    setStatus($("#match-status"), err.message, true);
  }
}

$("#search-form").addEventListener("submit", runSearch);
$("#match-btn").addEventListener("click", runMatch);
$("#detail-close").addEventListener("click", () => { $("#detail").hidden = true; });
$("#token-btn").addEventListener("click", () => {
  token = $("#token").value.trim();
  sessionStorage.setItem("jobpipe-token", token);
  $("#token-box").hidden = true;
  runSearch();
});
for (const id of ["#job-type", "#remote", "#fresh", "#posted-from", "#posted-until", "#auto"]) {
  $(id).addEventListener("change", () => { if ($("#q").value.trim()) runSearch(); });
}
const initial = new URLSearchParams(location.search).get("q");
if (initial) { $("#q").value = initial; runSearch(); }
