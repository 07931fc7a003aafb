// The participant's page. The server holds all state: this script asks it where the participant is, shows that
// page, and sends each answer the moment it is given; the next trial appears only once the server has
// acknowledged (saved) the answer, so a reload always resumes at the first unanswered trial.
"use strict";

const TOKEN = location.pathname.split("/").filter(Boolean)[1] || "";
const app = document.getElementById("app");
const notice = document.getElementById("notice");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class ApiError extends Error {
  constructor(status, message, data) { super(message); this.status = status; this.data = data || {}; }
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
      if (!res.ok) throw new ApiError(res.status, data.error || `HTTP ${res.status}`, data);
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

// The recruiting platform's rules for this page (evaluate/humans/platform.py), from the last state: minimum window
// size, full screen at the start, idle timeout; null for an in-lab link of a study without a platform.
let rules = null;
const ONGOING = ["instructions", "quiz", "trial", "practice", "feedback", "about"];

function show(kind, ...nodes) {
  onKey = null;  // a page's keys end with it
  fit = null;
  onBlur = null;
  if (rules && ONGOING.includes(kind)) nodes.push(withdrawBox());
  idleTimer(kind);  // every page follows a server contact, so the page's clock never runs ahead of the server's
  app.replaceChildren(...nodes);
  app.dataset.page = kind;  // which page is shown (tests and screenshots wait for it)
}

function progress(answered, total) {
  const pct = total ? Math.round((100 * answered) / total) : 0;
  document.getElementById("bar").style.width = `${pct}%`;
  document.getElementById("progress").setAttribute("aria-valuenow", String(pct));
  document.getElementById("progress-text").textContent = total ? `${answered} / ${total}` : "";
}

// One load at a time: a double click or a key and a click together must not fetch the state twice, since the
// server counts each state that shows a trial as one showing of it (two would read as a reload).
let loading = null;
function load() {
  if (!loading) loading = loadState().finally(() => { loading = null; });
  return loading;
}

async function loadState() {
  let state;
  try {
    state = await call("state");
  } catch (e) {
    return showError(e.message);
  }
  progress(state.answered, state.total);
  rules = state.rules || null;
  if (state.stage === "ended") return endedPage(state);
  if (state.stage === "consent") return consentPage(state);
  if (state.stage === "instructions") return instructionsPage(state);
  if (state.stage === "quiz") return quizPage(state);
  if (state.stage === "about") return aboutPage(state);
  if (state.stage === "trial") return trialPage(state.trial);
  if (state.stage === "declined") {
    return show("declined", el("h1", { text: "Thank you" }),
      el("p", { text: "You chose not to take part. Nothing was recorded. You can close this page." }));
  }
  const done = state.text ? markdown(state.text) : [el("h1", { text: "Thank you!" }),
    el("p", { text: "All your answers are saved. You can close this page." })];
  return show("done", ...done, ...completion(state.completion));
}

// The end of a platform session: the completion code of its outcome and the way back to the platform, which the
// page takes by itself after REDIRECT_MS (the server accepts only https URLs, or http to localhost).
const REDIRECT_MS = 4000;
function completion(c) {
  if (!c || !/^https?:\/\//.test(c.url)) return [];
  const link = el("a", { id: "completion-link", href: c.url, text: "Return to the study platform" });
  setTimeout(() => { if (app.dataset.page === "done" || app.dataset.page === "ended") location.assign(c.url); },
    REDIRECT_MS);
  return [el("p", { id: "completion" }, "Your completion code: ", el("code", { id: "completion-code", text: c.code })),
    el("p", {}, link, document.createTextNode(" (you are taken there in a few seconds)"))];
}

const ENDED = {
  withdrew: "You stopped taking part. Thank you for your time.",
  timeout: "This session ended because nothing happened for a long time.",
  "declined consent": "You chose not to take part. Nothing more will be recorded.",
};
function endedPage(state) {
  const why = state.outcome === "screened_out"
    ? "Thank you for your time. Based on your answers to the check questions, this study is not a match for you."
    : ENDED[state.reason] || "This session has ended.";
  show("ended", el("h1", { text: "The session has ended" }), el("p", { id: "ended-reason", text: why }),
    ...completion(state.completion));
  app.dataset.outcome = state.outcome;
}

// Idle timeout: the page asks the server again once the study's idle time has passed with nothing sent; the server
// then ends the session (store.py) and the page shows the end.
let idle = null;
function idleTimer(kind) {
  clearTimeout(idle);
  const s = rules && rules.idle_timeout_s;
  if (s && (ONGOING.includes(kind) || kind === "consent")) idle = setTimeout(() => load(), (s + 1) * 1000);
}

// Stop and return the study (platform participants): two steps, so a slip does not end the session.
function withdrawBox() {
  const ask = el("button", { id: "withdraw", type: "button", class: "quiet", text: "Stop taking part" });
  const sure = el("button", { id: "withdraw-confirm", type: "button", hidden: "", text: "Yes, stop and return the study" });
  ask.onclick = () => { sure.hidden = false; ask.hidden = true; };
  sure.onclick = () => post("withdraw", {});
  return el("div", { class: "withdraw" }, ask, sure);
}

// The window must be at least rules.min_window (CSS pixels) before the trials start: a smaller one shows a message
// and keeps Start disabled until the window is made larger.
function windowCheck(button) {
  const need = rules && rules.min_window;
  if (!need || !(need[0] || need[1])) return null;
  const msg = el("p", { class: "feedback wrong", id: "window-small", hidden: "" });
  const check = () => {
    if (!document.body.contains(button)) return window.removeEventListener("resize", check);
    const small = window.innerWidth < need[0] || window.innerHeight < need[1];
    msg.hidden = !small;
    button.disabled = small;
    msg.textContent = `Please make your browser window larger: at least ${need[0]} x ${need[1]} pixels ` +
      `(now ${window.innerWidth} x ${window.innerHeight}), or use full screen.`;
  };
  window.addEventListener("resize", check);
  document.addEventListener("fullscreenchange", check);
  setTimeout(check, 0);
  return msg;
}

// Full screen from the Start click (a browser grants it only in answer to a click).
function askFullscreen() {
  const root = document.documentElement;
  if (rules && rules.fullscreen && root.requestFullscreen && !document.fullscreenElement) {
    root.requestFullscreen().catch(() => {});
  }
}

// The researcher's texts (STUDY/texts/*.md, evaluate/humans/texts.py): a small Markdown subset (paragraphs,
// "#" headings, "-" or "*" lists, **bold**, *italics*) built from text nodes only, so nothing in a text becomes HTML.
function inline(text) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|\*([^*]+)\*/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > at) out.push(document.createTextNode(text.slice(at, m.index)));
    out.push(m[1] !== undefined ? el("strong", { text: m[1] }) : el("em", { text: m[2] }));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(document.createTextNode(text.slice(at)));
  return out;
}

function markdown(text) {
  const nodes = [];
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n\s*\n/)) {
    const lines = block.split("\n").map((l) => l.trim()).filter(Boolean);
    if (!lines.length) continue;
    const heading = /^(#{1,3})\s+(.*)$/.exec(lines[0]);
    if (heading && lines.length === 1) {
      nodes.push(el(`h${heading[1].length}`, {}, ...inline(heading[2])));
    } else if (lines.every((l) => /^[-*]\s+/.test(l))) {
      nodes.push(el("ul", {}, ...lines.map((l) => el("li", {}, ...inline(l.replace(/^[-*]\s+/, ""))))));
    } else {
      nodes.push(el("p", {}, ...inline(lines.join(" "))));
    }
  }
  return nodes;
}

function showError(message) {
  show("error", el("h1", { text: "Something went wrong" }), el("p", { text: message }));
  app.classList.add("error");
}

async function post(path, body) {
  app.querySelectorAll("button").forEach((b) => { b.disabled = true; });  // one click, one request
  try {
    await call(path, body);
  } catch (e) {
    if (e.status !== 409) return showError(e.message);  // 409: already done (e.g. in another tab): resync
  }
  return load();
}

function consentPage(state) {
  const agree = el("button", { id: "agree", class: "primary", text: "I agree to take part" });
  const decline = el("button", { id: "decline", text: "I do not agree" });
  agree.onclick = () => post("consent", { consent: true });
  decline.onclick = () => post("consent", { consent: false });
  if (state.text) return show("consent", ...markdown(state.text), el("div", { class: "buttons" }, agree, decline));
  return show("consent",
    el("h1", { text: "Taking part in this study" }),
    el("p", { text: "You will watch short computer-generated videos of objects moving and answer one question " +
      "about each. It takes a few minutes." }),
    el("p", { text: "No personal data is collected: not your name, e-mail or address. Your answers are stored " +
      "under a random code and used only to measure how people judge these videos." }),
    ...(rules ? [el("p", { text: "Your recruiting platform's participant id is stored with your answers, so that " +
      "your participation can be confirmed and paid." })] : []),
    el("p", { text: "Taking part is voluntary; you can stop at any time by closing the page." }),
    el("div", { class: "buttons" }, agree, decline));
}

// Keys: one listener for the whole page; each page sets `onKey` (show() clears it). Held keys (auto-repeat) and
// shortcuts with Ctrl/Alt/Meta are ignored.
let onKey = null;
document.addEventListener("keydown", (e) => {
  if (!onKey || e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
  onKey(e);
});

// A key's column on the keyboard, left to right (QWERTY), so the answer buttons sit in the order of their keys.
const COLUMNS = "qazwsxedcrfvtgbyhnujmikolp";
const keyName = (k) => (k.length === 1 ? k.toUpperCase() : k);

function keysText(keys) {
  return `Press ${keyName(keys.yes)} for Yes and ${keyName(keys.no)} for No (or click).`;
}

function instructionsText(state) {
  const keys = el("p", { class: "hint", id: "keys-info", text: state.response === "slider"
    ? "Keys: the arrow keys move the slider, Enter continues."
    : `Keys: ${keysText(state.keys || { yes: "f", no: "j" })}` });
  if (state.text) return [...markdown(state.text), keys];
  const task = state.response === "slider"
    ? "After each video, move the slider to say how surprising what happened was (the arrow keys move it too), " +
      "then press Continue or Enter."
    : `After each video, answer the question with Yes or No. ${keysText(state.keys || { yes: "f", no: "j" })}`;
  const familiar = state.protocol === "avoe"
    ? "The first videos show how things normally behave: just watch them."
    : "The first videos are practice: you will be told the right answer.";
  return [
    el("h1", { text: "Instructions" }),
    el("p", { text: "Each video plays once by itself; you can play it again. The answer unlocks when the " +
      "video has finished. The Full screen button makes the video as large as your screen allows." }),
    el("p", { text: task }),
    el("p", { text: familiar }),
    el("p", { text: "Some questions check that you are paying attention, to the question or to the video." }),
    el("p", { text: "If you reload the page or lose the connection, you continue where you were." }),
  ];
}

function instructionsPage(state) {
  const start = el("button", { id: "start", class: "primary", text: "Start" });
  start.onclick = () => { askFullscreen(); post("instructions", {}); };
  const small = windowCheck(start);
  // the window message first, where a small window shows it without scrolling
  show("instructions", ...(small ? [small] : []), ...instructionsText(state), el("div", { class: "buttons" }, start));
}

// After the last trial, where the study asks: optional questions (each may be left unanswered) and an optional
// comment (its prompt is the researcher's text). Typed text is sent as it is; the page shows nothing of it back.
function aboutPage(state) {
  const groups = state.demographics.map((q, i) => el("fieldset", { class: "quiz", id: `d${i}` },
    el("legend", { text: q.question }),
    ...q.choices.map((c, j) => el("label", { class: "choice" },
      el("input", { type: "radio", name: `d${i}`, value: String(j), id: `d${i}-${j}` }), ` ${c}`))));
  const nodes = [el("h1", { text: "Almost done" }),
    el("p", { text: "These questions are optional: answer what you like, then press Finish." }), ...groups];
  let box = null;
  if (state.comment) {
    box = el("textarea", { id: "comment", rows: "4", maxlength: "1000", "aria-label": "comment" });
    nodes.push(...markdown(state.comment), box);
  }
  const finish = el("button", { id: "finish", class: "primary", text: "Finish" });
  finish.onclick = () => {
    const demographics = state.demographics.map((_, i) => {
      const picked = app.querySelector(`input[name="d${i}"]:checked`);
      return picked ? Number(picked.value) : null;
    });
    const comment = box && box.value.trim() ? box.value : null;
    post("about", { demographics: state.demographics.length ? demographics : null, comment });
  };
  show("about", ...nodes, el("div", { class: "buttons" }, finish));
}

// The comprehension quiz (where the study has one): the instructions again, then the questions; the trials begin
// once every answer is right. The server checks the answers (the page never gets them) and counts the attempts.
function quizPage(state, wrong = null) {
  const groups = state.quiz.map((q, i) => {
    const choices = q.choices.map((c, j) => el("label", { class: "choice" },
      el("input", { type: "radio", name: `q${i}`, value: String(j), id: `q${i}-${j}` }), ` ${c}`));
    const box = el("fieldset", { class: `quiz${wrong && wrong.includes(i) ? " wrong" : ""}`, id: `q${i}` },
      el("legend", { text: q.question }), ...choices);
    return box;
  });
  const check = el("button", { id: "check", class: "primary", text: "Check my answers" });
  const missing = el("p", { class: "hint", id: "quiz-missing", hidden: "", text: "Please answer every question." });
  check.onclick = async () => {
    const answers = state.quiz.map((_, i) => {
      const picked = app.querySelector(`input[name="q${i}"]:checked`);
      return picked ? Number(picked.value) : null;
    });
    if (answers.includes(null)) { missing.hidden = false; return; }
    check.disabled = true;
    let result;
    try {
      result = await call("quiz", { answers });
    } catch (e) {
      if (e.status === 409) return load();
      return showError(e.message);
    }
    if (result.passed || result.ended) return load();
    window.scrollTo(0, 0);
    return quizPage(result, result.wrong);
  };
  const message = wrong
    ? el("p", { class: "feedback wrong", id: "quiz-wrong", text: `Not quite: ${wrong.length === 1 ? "one answer" :
      `${wrong.length} answers`} (marked) ${wrong.length === 1 ? "was" : "were"} not right. Please read the ` +
      "instructions again and answer once more." })
    : el("p", { text: "Before the videos start, please answer these questions about the instructions." });
  show("quiz", ...instructionsText(state), el("h2", { text: "Questions" }), message, ...groups, missing,
    el("div", { class: "buttons" }, check));
}

function fullscreenButton() {
  // The whole page goes full screen (not the video element, whose native fullscreen shows seekable controls), so
  // the question and the answer keys stay in view and full screen lasts from one trial to the next.
  const root = document.documentElement;
  if (!document.fullscreenEnabled || !root.requestFullscreen) return null;
  const b = el("button", { id: "fullscreen", type: "button" });
  fullscreenLabel(b);
  b.onclick = () => (document.fullscreenElement ? document.exitFullscreen() : root.requestFullscreen())
    .catch(() => {});  // refused (e.g. by the browser's policy): the page still works in the window
  return b;
}

function fullscreenLabel(b) {
  if (b) b.textContent = document.fullscreenElement ? "Exit full screen" : "Full screen";
}

// The video's width: as wide as its column allows, and no taller than the window leaves once everything else on the
// page (progress bar, buttons, question, answers) is in view, at the video's aspect ratio (--ar). Run when the page
// is shown, when the window or full screen changes, and when the file's size becomes known.
let fit = null;
function fitVideo(video) {
  const ar = Number(video.style.getPropertyValue("--ar")) || 4 / 3;
  const column = video.parentElement.getBoundingClientRect().width;
  const bottom = app.getBoundingClientRect().bottom + window.scrollY + parseFloat(getComputedStyle(app).marginBottom);
  const others = bottom - video.getBoundingClientRect().height;  // the page's height without the video
  const room = window.innerHeight - others - 8;
  const minimum = 192;  // never smaller than this, even in a tiny window (the page scrolls instead)
  video.style.width = `${Math.floor(Math.max(minimum, Math.min(column, room * ar)))}px`;
}
window.addEventListener("resize", () => { if (fit) fit(); });
document.addEventListener("fullscreenchange", () => {
  fullscreenLabel(document.getElementById("fullscreen"));
  if (fit) fit();
});

// Focus lost during a trial (another window or tab in front, the page hidden): counted per trial and stored with
// the answer (media.focus_lost), so a researcher can see who looked away.
// A window blur and the page being hidden often come together: one loss is counted until the focus is back.
let onBlur = null;
let away = false;
const lost = () => { if (!away) { away = true; if (onBlur) onBlur(); } };
window.addEventListener("blur", lost);
window.addEventListener("focus", () => { away = false; });
document.addEventListener("visibilitychange", () => { if (document.hidden) lost(); });

// The video's box: as large as the window allows at the video's own aspect ratio (from the set's width and height,
// else from the file once its size is known). No controls: the participant cannot seek ahead.
function videoStage(trial, media, timing, unlock) {
  const video = el("video", { id: "video", autoplay: "", muted: "", playsinline: "", preload: "auto",
    disablepictureinpicture: "", controlslist: "nodownload nofullscreen noremoteplayback" });
  video.muted = true;  // browsers autoplay only muted videos
  const ratio = (w, h) => { if (w > 0 && h > 0) video.style.setProperty("--ar", String(w / h)); };
  if (trial.size) ratio(trial.size[0], trial.size[1]);
  video.addEventListener("loadedmetadata", () => {
    if (!trial.size) ratio(video.videoWidth, video.videoHeight);
    if (fit) fit();
  });
  video.addEventListener("contextmenu", (e) => e.preventDefault());  // Chromium's menu offers "Show controls"
  let furthest = 0;
  let seekingAllowed = false;
  // how far the video has played (a seek's own timeupdate does not count); a seek beyond it is undone
  video.addEventListener("timeupdate", () => { if (!video.seeking) furthest = Math.max(furthest, video.currentTime); });
  const guard = () => {
    if (!seekingAllowed && video.currentTime > furthest + 0.25) video.currentTime = furthest;
  };
  video.addEventListener("seeking", guard);
  video.addEventListener("seeked", () => { guard(); seekingAllowed = false; });
  // the first frame on screen (requestVideoFrameCallback where the browser has it, else the "playing" event)
  const firstFrame = (t) => { if (timing.start === null) timing.start = t; };
  if (video.requestVideoFrameCallback) {
    video.requestVideoFrameCallback((now, meta) => firstFrame(meta.presentationTime || now));
  }
  video.addEventListener("playing", (e) => { if (!video.requestVideoFrameCallback) firstFrame(e.timeStamp); });
  video.addEventListener("ended", (e) => {
    media.played = true;
    if (timing.end === null) timing.end = e.timeStamp;
    unlock();
  });
  video.addEventListener("error", (e) => {
    media.error = true;
    notice.textContent = "The video could not be played; please answer anyway (this answer is not scored).";
    notice.hidden = false;
    if (timing.end === null) timing.end = e.timeStamp;
    unlock();
  });
  video.src = `/api/${encodeURIComponent(TOKEN)}/video/${trial.position}`;
  const again = el("button", { id: "replay", type: "button", text: "Play again" });
  again.onclick = () => { media.replays += 1; seekingAllowed = true; video.currentTime = 0; video.play(); };
  const buttons = el("div", { class: "buttons" }, again);
  const fs = fullscreenButton();
  if (fs) buttons.append(fs);
  return [el("div", { class: "stage" }, video), buttons];
}

function trialPage(trial) {
  // Times on the page's clock (performance.now(); events' timeStamp): when the trial appeared, the video's first
  // frame and its end. rt_ms counts from the end (the answer unlocks then; from the page's appearance where there
  // is no video), rt_start_ms from the first frame. A reload shows the trial again with a new clock: the server
  // counts the showings and marks such an answer's times (store.py, Timing).
  const timing = { shown: performance.now(), start: null, end: null };
  const media = { played: false, error: false, replays: 0, focus_lost: 0, fullscreen: false };
  const controls = [];
  let answered = false;
  let unlocked = !trial.video;

  const hint = el("p", { class: "hint", id: "hint", text: "The answer unlocks when the video has finished." });
  const unlock = () => {
    if (unlocked) return;
    unlocked = true;
    controls.forEach((c) => { if (!c.dataset.waitMove) c.disabled = false; });
    hint.hidden = true;
    const rating = document.getElementById("rating");
    if (rating) rating.focus();  // the arrow keys move the slider at once
  };
  const nodes = [];
  if (trial.practice) nodes.push(el("span", { class: "badge", text: "Practice" }));
  if (trial.video) nodes.push(...videoStage(trial, media, timing, unlock));
  nodes.push(el("p", { class: "question", id: "question", text: trial.question }));

  async function send(value, key, stamp) {
    if (answered || !unlocked) return;
    answered = true;
    onKey = null;
    controls.forEach((c) => { c.disabled = true; });
    notice.hidden = true;
    const from = trial.video ? timing.end : timing.shown;
    const ms = (t0) => (t0 === null ? null : Math.max(0, Math.round(stamp - t0)));
    media.fullscreen = Boolean(document.fullscreenElement);
    const shownVideo = document.getElementById("video");
    if (shownVideo) {  // the size the video was shown at (CSS pixels), e.g. to compute its visual angle
      const r = shownVideo.getBoundingClientRect();
      media.video_px = [Math.round(r.width), Math.round(r.height)];
    }
    const body = { position: trial.position, answer: value, rt_ms: ms(from), rt_start_ms: ms(timing.start),
      key, media };
    let ack;
    // 425: sent before the video can have played through by the server's clock (evaluate/humans/viewing.py; an
    // honest page is not early, but a clock can be off): wait the time left and send the same answer again
    for (let early = 0; !ack; early++) {
      try {
        ack = await call("answer", body);
      } catch (e) {
        if (e.status === 425 && early < 10) {
          notice.textContent = "Saving your answer…";
          notice.hidden = false;
          await sleep(Math.min(Number(e.data.retry_after_ms) || 1000, 60000) + 50);
          continue;
        }
        if (e.status === 409) return load();  // saved already (an acknowledgement lost on the way): resync
        return showError(e.message);
      }
    }
    notice.hidden = true;
    progress(ack.answered, ack.total);
    if (ack.feedback) return feedbackPage(ack.feedback);
    return load();
  }

  let keyHandler = null;
  if (trial.response === "yesno") {
    const keys = trial.keys;
    const yes = el("button", { id: "yes", class: "primary", "data-key": keys.yes });
    const no = el("button", { id: "no", class: "primary", "data-key": keys.no });
    yes.append("Yes ", el("kbd", { text: keyName(keys.yes) }));
    no.append("No ", el("kbd", { text: keyName(keys.no) }));
    yes.onclick = (e) => send("yes", null, e.timeStamp);
    no.onclick = (e) => send("no", null, e.timeStamp);
    controls.push(yes, no);
    const ordered = COLUMNS.indexOf(keys.yes) <= COLUMNS.indexOf(keys.no) ? [yes, no] : [no, yes];
    nodes.push(el("div", { class: "buttons answers" }, ...ordered),
      el("p", { class: "hint", id: "keys-hint", text: keysText(keys) }));
    keyHandler = (e) => {
      const k = e.key.toLowerCase();
      if (k === keys.yes || k === keys.no) {
        e.preventDefault();
        send(k === keys.yes ? "yes" : "no", k, e.timeStamp);
      }
    };
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
      if (unlocked) go.disabled = false;
    });
    go.onclick = (e) => { if (!go.dataset.waitMove) send(Number(input.value), null, e.timeStamp); };
    controls.push(input, go);
    nodes.push(el("div", { class: "slider" }, input,
      el("div", { class: "ends" }, el("span", { text: trial.labels[0] }), el("span", { text: trial.labels[1] }))),
    moveHint, el("div", { class: "buttons" }, go));
    keyHandler = (e) => {
      if (e.key === trial.keys.submit && !go.dataset.waitMove) {
        e.preventDefault();
        send(Number(input.value), trial.keys.submit, e.timeStamp);
      }
    };
  } else {
    const go = el("button", { id: "continue", class: "primary", text: "Continue" });
    go.onclick = (e) => send("continue", null, e.timeStamp);
    controls.push(go);
    nodes.push(el("div", { class: "buttons" }, go));
    keyHandler = (e) => {
      if (e.key === trial.keys.submit) {
        e.preventDefault();
        send("continue", trial.keys.submit, e.timeStamp);
      }
    };
  }
  if (trial.video) {
    controls.forEach((c) => { c.disabled = true; });
    nodes.push(hint);
  } else {
    controls.forEach((c) => { if (c.dataset.waitMove) c.disabled = true; });
  }
  show(trial.practice ? "practice" : "trial", ...nodes);
  const shown = document.getElementById("video");
  if (shown) {
    fit = () => fitVideo(shown);
    fit();
  }
  app.dataset.response = trial.response;
  app.dataset.position = String(trial.position);
  onKey = (e) => { if (unlocked && !answered) keyHandler(e); };  // keys count only once the answer is unlocked
  onBlur = () => { if (!answered) media.focus_lost += 1; };
}

function feedbackPage(fb) {
  const next = el("button", { id: "next", class: "primary", text: "Continue" });
  next.onclick = () => load();
  const what = fb.truth === "yes" ? "could really happen (plausible)" : "could not really happen (implausible)";
  show("feedback",
    el("p", { class: `feedback ${fb.correct ? "right" : "wrong"}`,
      text: `${fb.correct ? "Right" : "Not quite"}: what happened in this video ${what}.` }),
    el("div", { class: "buttons" }, next));
  onKey = (e) => { if (e.key === "Enter") { e.preventDefault(); onKey = null; load(); } };
}

load();
