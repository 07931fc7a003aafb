// The participant's page. The server holds all state: this script asks it where the participant is, shows that
// page, and sends each answer the moment it is given; the next trial appears only once the server has
// acknowledged (saved) the answer, so a reload always resumes at the first unanswered trial.
"use strict";

const TOKEN = location.pathname.split("/").filter(Boolean)[1] || "";
const app = document.getElementById("app");
const notice = document.getElementById("notice");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// GET (body undefined) or POST JSON; network failures and server errors are retried with backoff, because an
// answer counts only once the server has acknowledged it.
async function call(path, body) {
  const url = `/api/${encodeURIComponent(TOKEN)}/${path}`;
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(url, body === undefined ? { cache: "no-store" } : {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
    } catch (e) {
      res = null;
    }
    if (res && res.status < 500) {
      const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
      notice.hidden = true;
      if (!res.ok) throw new ApiError(res.status, data.error || `HTTP ${res.status}`);
      return data;
    }
    notice.textContent = "Connection problem; retrying… (your answers so far are saved)";
    notice.hidden = false;
    await sleep(Math.min(500 * 2 ** attempt, 5000));
  }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function show(kind, ...nodes) {
  app.replaceChildren(...nodes);
  app.dataset.page = kind;  // which page is shown (tests and screenshots wait for it)
}

function progress(answered, total) {
  const pct = total ? Math.round((100 * answered) / total) : 0;
  document.getElementById("bar").style.width = `${pct}%`;
  document.getElementById("progress").setAttribute("aria-valuenow", String(pct));
  document.getElementById("progress-text").textContent = total ? `${answered} / ${total}` : "";
}

async function load() {
  let state;
  try {
    state = await call("state");
  } catch (e) {
    return showError(e.message);
  }
  progress(state.answered, state.total);
  if (state.stage === "consent") return consentPage();
  if (state.stage === "instructions") return instructionsPage(state);
  if (state.stage === "trial") return trialPage(state.trial);
  if (state.stage === "declined") {
    return show("declined", el("h1", { text: "Thank you" }),
      el("p", { text: "You chose not to take part. Nothing was recorded. You can close this page." }));
  }
  return show("done", el("h1", { text: "Thank you!" }),
    el("p", { text: "All your answers are saved. You can close this page." }));
}

function showError(message) {
  show("error", el("h1", { text: "Something went wrong" }), el("p", { text: message }));
  app.classList.add("error");
}

async function post(path, body) {
  try {
    await call(path, body);
  } catch (e) {
    if (e.status !== 409) return showError(e.message);  // 409: already done (e.g. in another tab): resync
  }
  return load();
}

function consentPage() {
  const agree = el("button", { id: "agree", class: "primary", text: "I agree to take part" });
  const decline = el("button", { id: "decline", text: "I do not agree" });
  agree.onclick = () => post("consent", { consent: true });
  decline.onclick = () => post("consent", { consent: false });
  show("consent",
    el("h1", { text: "Taking part in this study" }),
    el("p", { text: "You will watch short computer-generated videos of objects moving and answer one question " +
      "about each. It takes a few minutes." }),
    el("p", { text: "No personal data is collected: not your name, e-mail or address. Your answers are stored " +
      "under a random code and used only to measure how people judge these videos." }),
    el("p", { text: "Taking part is voluntary; you can stop at any time by closing the page." }),
    el("div", { class: "buttons" }, agree, decline));
}

function instructionsPage(state) {
  const start = el("button", { id: "start", class: "primary", text: "Start" });
  start.onclick = () => post("instructions", {});
  const task = state.response === "slider"
    ? "After each video, move the slider to say how surprising what happened was, then press Continue."
    : "After each video, answer the question with Yes or No.";
  const familiar = state.protocol === "avoe"
    ? "The first videos show how things normally behave: just watch them."
    : "The first videos are practice: you will be told the right answer.";
  show("instructions",
    el("h1", { text: "Instructions" }),
    el("p", { text: "Each video plays once by itself; you can play it again. The answer buttons unlock when the " +
      "video has finished." }),
    el("p", { text: task }),
    el("p", { text: familiar }),
    el("p", { text: "Some questions check that you are paying attention: they say exactly which answer to give." }),
    el("p", { text: "If you reload the page or lose the connection, you continue where you were." }),
    el("div", { class: "buttons" }, start));
}

function trialPage(trial) {
  const started = performance.now();
  const media = { played: false, error: false, replays: 0 };
  const controls = [];
  let answered = false;

  const hint = el("p", { class: "hint", id: "hint", text: "The answer unlocks when the video has finished." });
  const unlock = () => {
    controls.forEach((c) => { if (!c.dataset.waitMove) c.disabled = false; });
    hint.hidden = true;
  };
  const nodes = [];
  if (trial.practice) nodes.push(el("span", { class: "badge", text: "Practice" }));
  if (trial.video) {
    const video = el("video", { id: "video", autoplay: "", muted: "", playsinline: "", preload: "auto" });
    video.muted = true;  // browsers autoplay only muted videos
    video.src = `/api/${encodeURIComponent(TOKEN)}/video/${trial.position}`;
    video.addEventListener("ended", () => { media.played = true; unlock(); });
    video.addEventListener("error", () => {
      media.error = true;
      notice.textContent = "The video could not be played; please answer anyway (this answer is not scored).";
      notice.hidden = false;
      unlock();
    });
    const again = el("button", { id: "replay", text: "Play again" });
    again.onclick = () => { media.replays += 1; video.currentTime = 0; video.play(); };
    nodes.push(video, el("div", { class: "buttons" }, again));
  }
  nodes.push(el("p", { class: "question", id: "question", text: trial.question }));

  async function send(value) {
    if (answered) return;
    answered = true;
    controls.forEach((c) => { c.disabled = true; });
    notice.hidden = true;
    const body = { position: trial.position, answer: value, rt_ms: Math.round(performance.now() - started), media };
    let ack;
    try {
      ack = await call("answer", body);
    } catch (e) {
      if (e.status === 409) return load();  // saved already (an acknowledgement lost on the way): resync
      return showError(e.message);
    }
    progress(ack.answered, ack.total);
    if (ack.feedback) return feedbackPage(ack.feedback);
    return load();
  }

  if (trial.response === "yesno") {
    const yes = el("button", { id: "yes", class: "primary", text: "Yes" });
    const no = el("button", { id: "no", class: "primary", text: "No" });
    yes.onclick = () => send("yes");
    no.onclick = () => send("no");
    controls.push(yes, no);
    nodes.push(el("div", { class: "buttons" }, yes, no));
  } else if (trial.response === "slider") {
    const input = el("input", { id: "rating", type: "range", min: "0", max: String(trial.max), value: String(trial.max / 2),
      "aria-label": "rating" });
    const go = el("button", { id: "submit", class: "primary", text: "Continue" });
    // The thumb starts in the middle, which is no rating yet: Continue stays disabled, with this message, until
    // the slider was moved. A slider moved and brought back to the middle is a rating of the middle (valid).
    go.dataset.waitMove = "1";
    const moveHint = el("p", { class: "hint", id: "move-hint",
      text: "Move the slider to give your rating (for the middle, move it away and back)." });
    input.addEventListener("input", () => {
      delete go.dataset.waitMove;
      moveHint.hidden = true;
      if (!trial.video || media.played || media.error) go.disabled = false;
    });
    go.onclick = () => { if (!go.dataset.waitMove) send(Number(input.value)); };
    controls.push(input, go);
    nodes.push(el("div", { class: "slider" }, input,
      el("div", { class: "ends" }, el("span", { text: trial.labels[0] }), el("span", { text: trial.labels[1] }))),
    moveHint, el("div", { class: "buttons" }, go));
  } else {
    const go = el("button", { id: "continue", class: "primary", text: "Continue" });
    go.onclick = () => send("continue");
    controls.push(go);
    nodes.push(el("div", { class: "buttons" }, go));
  }
  if (trial.video) {
    controls.forEach((c) => { c.disabled = true; });
    nodes.push(hint);
  } else {
    controls.forEach((c) => { if (c.dataset.waitMove) c.disabled = true; });
  }
  show(trial.practice ? "practice" : "trial", ...nodes);
  app.dataset.response = trial.response;
  app.dataset.position = String(trial.position);
}

function feedbackPage(fb) {
  const next = el("button", { id: "next", class: "primary", text: "Continue" });
  next.onclick = () => load();
  const what = fb.truth === "yes" ? "could really happen (plausible)" : "could not really happen (implausible)";
  show("feedback",
    el("p", { class: `feedback ${fb.correct ? "right" : "wrong"}`,
      text: `${fb.correct ? "Right" : "Not quite"}: what happened in this video ${what}.` }),
    el("div", { class: "buttons" }, next));
}

load();
