// Number Drop in the browser. The page knows no rule: it draws the state the server sends and
// offers the options of its `legal` field (one per legal action of the engine's mask); a click
// or a key picks one, and the server checks it against the mask again before playing it.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const C = 40; // a cell, in the sheet's SVG units
  const GX = 34, GY = 14; // the grid's top-left corner
  const MODES = ["play", "watch", "replay", "compare"];
  const STORE = "numberdrop-web";
  let META = null;

  const app = {
    mode: "play", id: null, state: null, agent: "greedy", seed: 0,
    busy: false, asking: false, hint: null, analysis: null, hover: null, job: null, showHint: true,
    ui: { orient: null, col: 3, shape: null, assign: [], picked: null, cursor: null, wishes: {}, turn: -1, index: -1, tip: null },
    replay: { length: 0, at: 0, starts: [] },
    compare: { id: null, state: null, syncing: false },
    watch: { running: false },
    games: { own: null, watch: null }, // this tab's copy of the player's game and of the agent's watched game
    timings: [],
    mispredicted: 0,
    errors: [],
    loading: false,
  };
  app.cellCenter = (r, c, id = "sheet") => {
    // where a cell's centre is on the screen (the tests point at cells)
    const m = $(id).getScreenCTM(), [x, y] = cellXY(r, c);
    return { x: m.a * (x + C / 2) + m.e, y: m.d * (y + C / 2) + m.f };
  };
  app.ghost = () => currentPlacement(); // the drop a click or Enter would play now
  app.idle = () => !app.busy && !app.asking && !app.compare.syncing && !app.loading;
  window.__nd = app; // the tests and the latency benchmark read it

  // ------------------------------------------------------------------ the server
  async function api(method, path, body) {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["content-type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    let data;
    try { data = await res.json(); } catch (e) { data = { error: `unreadable answer (HTTP ${res.status})` }; }
    if (!res.ok) {
      const err = new Error(data.error || res.statusText);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function showError(message) { $("error").textContent = message; app.errors.push(message); }
  function clearError() { $("error").textContent = ""; }
  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
  const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]));

  // Writes markup only when it changed: most decisions redraw a few of the page's parts, and
  // reparsing the others (the sheet's hundreds of SVG nodes) was most of a click's time.
  function paint(el, html) {
    if (el.__html === html) return;
    el.innerHTML = html;
    el.__html = html;
  }

  // the answer to a click equals the state sent ahead for it (the tests check that none differed)
  const sameState = (a, b) => JSON.stringify({ ...a, ahead: undefined }) === JSON.stringify({ ...b, ahead: undefined });

  function timing(kind, t0) {
    if (t0 === undefined) return;
    requestAnimationFrame(() => app.timings.push({ kind, ms: performance.now() - t0 }));
  }

  // ------------------------------------------------------------------ games
  // The player's game and the watched game are two games: Watch never plays in the player's.
  const roleOf = (mode) => (mode === "watch" ? "watch" : "own");

  async function newGame(seed, agent) {
    stopWatch();
    app.loading = true;
    try {
      const player = app.mode === "watch" ? agent : "human";
      let data;
      try {
        data = await api("POST", "/api/games", { seed, agent, player, auto: app.mode !== "watch" });
      } catch (e) {
        if (e.status !== 400 || agent === META.default_agent) throw e;
        showError(e.message); // an unknown agent: play on with the default one
        agent = META.default_agent;
        data = await api("POST", "/api/games", { seed, agent, player, auto: app.mode !== "watch" });
      }
      app.agent = agent;
      $("agent").value = agent;
      app.hint = app.analysis = app.hover = null;
      setState(data);
      if (app.mode === "compare") await startCompare();
      if (app.mode === "replay") enterReplay();
      updateUrl();
    } catch (e) {
      showError(e.message);
    } finally {
      app.loading = false;
    }
  }

  // A view switched to is a step of the browser's history (Back and Forward go between views);
  // a new game or a changed agent replaces the address in place.
  function updateUrl(push = false) {
    const q = new URLSearchParams({ seed: String(app.seed), agent: app.agent });
    if (app.mode !== "play") q.set("mode", app.mode);
    const url = `/?${q}`;
    if (push && `${location.pathname}${location.search}` !== url) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }

  function remember() {
    const st = app.state;
    if (!st || st.player === "record") return;
    const role = roleOf(app.mode);
    app.games[role] = { id: st.id, seed: st.seed, agent: app.agent, actions: st.actions, player: st.player };
    const copy = { mode: app.mode, ...app.games };
    try { sessionStorage.setItem(STORE, JSON.stringify(copy)); } catch (e) { /* private mode: no copy */ }
  }

  function saved() {
    try { return JSON.parse(sessionStorage.getItem(STORE) || "null"); } catch (e) { return null; }
  }

  async function restore(copy) {
    // the server may have dropped an idle game: build it again from this tab's copy
    try {
      return await api("GET", `/api/games/${copy.id}`);
    } catch (e) {
      if (e.status !== 404) throw e;
      return await api("POST", "/api/games", { seed: copy.seed, agent: copy.agent, actions: copy.actions, player: copy.player || "human" });
    }
  }

  async function recover(e) {
    if (e.status === 404 && app.state && app.state.seed !== null) {
      const data = await restore({ id: app.id, seed: app.state.seed, agent: app.agent, actions: app.state.actions, player: app.state.player });
      setState(data);
      showError("the server had dropped this idle game: it was set up again, nothing is lost");
      return true;
    }
    if (e.status === 409 && app.id) { // another tab (or window) of this game played meanwhile
      setState(await api("GET", `/api/games/${app.id}`));
      showError(STALE);
      return true;
    }
    return false;
  }

  const STALE = "this game was changed in another tab or window: your last move was not played, and the page now shows the game as it stands";

  function setState(data, points) {
    const prev = app.state;
    app.state = data;
    app.id = data.id;
    app.seed = data.seed;
    if (!prev || prev.id !== data.id) $("seed").value = data.seed === null ? "" : String(data.seed);
    if (app.mode !== "replay") { app.replay.length = data.length; app.replay.at = data.index; app.replay.starts = data.turn_starts; }
    if (!prev || prev.index !== data.index || prev.id !== data.id) resetDecision(data);
    if (app.hint && (app.hint.game !== data.id || app.hint.index !== data.index)) { app.hint = null; }
    if (app.analysis && (app.analysis.game !== data.id || app.analysis.index !== data.index)) { app.analysis = null; app.hover = null; }
    if (app.mode !== "replay") remember();
    render();
    if (points) flash(points);
    if (app.mode === "play" || app.mode === "compare") autoWild();
  }

  function resetDecision(st) {
    const ui = app.ui;
    ui.assign = (st.legal.cells || []).map(() => null);
    ui.picked = null;
    ui.tip = null;
    if (st.turn !== ui.turn) { ui.wishes = {}; ui.turn = st.turn; }
    if (st.phase === "combo") {
      const first = (st.legal.select || [])[0];
      ui.cursor = first ? first.cell.slice() : ui.cursor || [0, 3];
    }
    if (st.phase === "start" && st.legal.columns && !st.legal.columns.some((o) => o.column === ui.col)) ui.col = st.legal.columns[0].column;
    ui.index = st.index;
  }

  const canPlay = () => app.state && !app.state.over && (app.mode === "play" || app.mode === "compare");

  async function play(actions, t0, kind = "decision", internal = false, game = app.id) {
    if (app.busy || app.loading || !app.state || app.state.over || game !== app.id) return false;
    if (!internal && !canPlay()) return false;
    app.busy = true;
    // the state this click leads to, when the server sent it ahead: drawn now, confirmed by the answer
    const before = app.state;
    const guess = actions.length === 1 && before.ahead ? before.ahead[actions[0]] : undefined;
    if (guess) {
      setState(guess, guess.points);
      timing(kind, t0);
    }
    try {
      const body = { actions, expect: before.index, auto: app.mode !== "watch", ahead: app.mode !== "watch" };
      const data = await api("POST", `/api/games/${game}/actions`, body);
      app.busy = false; // drawn as playable again
      if (app.id !== game || app.loading) return true; // the view switched to another game meanwhile
      clearError();
      if (guess && !sameState(guess, data)) app.mispredicted += 1;
      setState(data, guess ? 0 : data.points);
      if (!guess) timing(kind, t0);
      return true;
    } catch (e) {
      if (app.id !== game || app.loading) return false;
      if (guess) setState(before); // the click did not happen after all
      if (!(await recover(e).catch(() => false))) showError(e.message);
      return false;
    } finally {
      app.busy = false;
      if (app.mode === "compare") syncCompare();
    }
  }

  async function undo(t0) {
    if (app.busy || !app.state || app.state.index === 0 || !(app.mode === "play" || app.mode === "compare")) return;
    app.busy = true;
    try {
      const data = await api("POST", `/api/games/${app.id}/undo`, { expect: app.state.index });
      app.busy = false;
      clearError();
      setState(data);
      timing("undo", t0);
    } catch (e) {
      if (!(await recover(e).catch(() => false))) showError(e.message);
    } finally {
      app.busy = false;
    }
  }

  // ------------------------------------------------------------------ hints and analysis
  // The first request waits only a moment for the answer (a greedy hint takes milliseconds): an
  // agent that needs longer answers "running" and its progress shows, with Cancel, until it ends.
  const MOMENT = 0.2; // seconds
  const POLL = 0.4; // seconds a poll waits for the job to end

  async function ask(kind, gameId = app.id, agent = app.agent) {
    const body = { agent, wait: MOMENT };
    if (kind === "analysis") body.top = 8;
    let job = await api("POST", `/api/games/${gameId}/${kind}`, body);
    const mine = { job: job.job, cancelled: false };
    app.job = mine; // the job whose progress shows (the latest asked)
    try {
      showProgress(mine, job);
      while (job.status === "running" && !mine.cancelled) {
        job = await api("GET", `/api/jobs/${job.job}?wait=${POLL}`);
        showProgress(mine, job);
      }
    } finally {
      if (app.job === mine) { app.job = null; $("progress").hidden = true; }
    }
    if (mine.cancelled || job.status === "cancelled") return null;
    if (job.status === "error") throw new Error(job.error);
    return job.status === "done" ? job.result : null;
  }

  function showProgress(mine, job) {
    if (app.job !== mine || mine.cancelled) return;
    const box = $("progress");
    if (job.status !== "running") { box.hidden = true; return; }
    const bar = $("progress-bar");
    if (job.progress === null || job.progress === undefined) bar.removeAttribute("value");
    else bar.value = job.progress;
    $("progress-text").textContent = `${job.stage} (${job.seconds.toFixed(1)} s)`;
    box.hidden = false;
  }

  async function cancelJob() {
    // the server stops the job at its next step; nothing it found is played
    const mine = app.job;
    if (!mine) return;
    mine.cancelled = true;
    try { await api("DELETE", `/api/jobs/${mine.job}`); } catch (e) { /* finished or forgotten meanwhile */ }
    if (app.job === mine) app.job = null;
    $("progress").hidden = true;
    $("hint-text").textContent = "cancelled";
  }

  async function requestHint(kind = "hint", t0) {
    if (!app.state || app.state.over || app.asking) return null;
    if (app.hint && kind === "hint" && app.hint.index === app.state.index && app.hint.game === app.id) return app.hint;
    app.asking = true;
    try {
      const result = await ask(kind);
      if (!result || result.game !== app.id || result.index !== app.state.index) return null;
      if (kind === "analysis") {
        app.analysis = result;
        app.hint = { ...result.hint, index: result.index, game: result.game };
      } else {
        app.hint = result;
      }
      app.showHint = true;
      clearError();
      render();
      timing(kind, t0);
      return app.hint;
    } catch (e) {
      if (!(await recover(e).catch(() => false))) showError(e.message);
      return null;
    } finally {
      app.asking = false;
    }
  }

  async function playHint(t0) {
    if (!app.state || app.state.over || app.busy) return;
    const hint = await requestHint("hint");
    if (hint) await play(hint.actions, t0, "hint");
  }

  // ------------------------------------------------------------------ watch
  async function watchLoop() {
    while (app.watch.running && app.mode === "watch") {
      if (!(await watchStep())) break;
      const speed = Number($("watch-speed").value);
      if (speed > 0) await sleep(speed);
    }
    stopWatch();
  }

  async function watchStep() {
    if (!app.state || app.state.over || app.mode !== "watch") return false;
    const game = app.id; // the watched game: never the player's
    const kind = $("watch-analyse").checked ? "analysis" : "hint";
    const hint = await requestHint(kind);
    if (!hint || app.mode !== "watch" || app.id !== game) return false;
    const speed = Number($("watch-speed").value);
    if (speed > 0) await sleep(Math.min(speed, 1200)); // the turn and its analysis shown first
    if (app.mode !== "watch") return false;
    return play(hint.actions, undefined, "watch", true, game);
  }

  function startWatch() {
    if (app.watch.running) { stopWatch(); return; }
    app.watch.running = true;
    $("watch-toggle").textContent = "Pause";
    watchLoop();
  }

  function stopWatch() {
    app.watch.running = false;
    const b = $("watch-toggle");
    if (b) b.textContent = "Play";
  }

  // ------------------------------------------------------------------ replay
  function enterReplay() {
    if (!app.state) return;
    app.replay = { length: app.state.length, at: app.state.index, starts: app.state.turn_starts };
    renderReplayBar();
  }

  async function loadRecord(file) {
    let record;
    try { record = JSON.parse(await file.text()); } catch (e) { showError(`${file.name}: not a JSON record (${e.message})`); return; }
    try {
      const data = await api("POST", "/api/games", { record, agent: app.agent });
      app.hint = app.analysis = null;
      app.replay = { length: data.length, at: data.length, starts: data.turn_starts };
      setState(data);
      clearError();
      await gotoStep(0);
    } catch (e) {
      showError(e.message);
    }
  }

  async function gotoStep(k, t0) {
    if (!app.id) return;
    k = Math.max(0, Math.min(app.replay.length, k));
    try {
      app.busy = true;
      const data = await api("GET", `/api/games/${app.id}/state?at=${k}`);
      app.busy = false;
      app.replay.at = k;
      app.state = data;
      resetDecision(data);
      render();
      timing("replay", t0);
    } catch (e) {
      if (!(await recover(e).catch(() => false))) showError(e.message);
    } finally {
      app.busy = false;
    }
  }

  function turnStep(dir) {
    const { at, starts, length } = app.replay;
    if (dir < 0) return starts.filter((s) => s < at).pop() ?? 0;
    return starts.find((s) => s > at) ?? length;
  }

  async function branch() {
    try {
      const record = await api("GET", `/api/games/${app.id}/record`);
      record.actions = record.actions.slice(0, app.replay.at);
      record.score = null;
      const data = await api("POST", "/api/games", { record, agent: app.agent, player: "human" });
      app.games.own = null;
      app.mode = "play";
      app.hint = app.analysis = null;
      setState(data);
      updateUrl(true);
    } catch (e) { showError(e.message); }
  }

  function renderReplayBar() {
    const { at, length } = app.replay;
    $("replay-pos").textContent = `${at} / ${length}`;
    $("replay-empty").hidden = length > 0; // nothing to step through: say what to do
    for (const b of document.querySelectorAll("#replay-bar [data-step]")) b.disabled = length === 0;
    $("replay-branch").disabled = length === 0;
  }

  // ------------------------------------------------------------------ compare
  async function startCompare() {
    app.compare = { id: null, state: null, syncing: false };
    const data = await api("POST", "/api/games", { seed: app.state.seed, agent: app.agent, player: app.agent });
    app.compare.id = data.id;
    app.compare.state = data;
    renderCompare();
    await syncCompare();
  }

  async function syncCompare() {
    const cmp = app.compare, mine = app.state;
    if (app.mode !== "compare" || !cmp.id || cmp.syncing || !mine) return;
    cmp.syncing = true;
    try {
      while (!cmp.state.over && (mine.over || cmp.state.turn < app.state.turn)) {
        const hint = await ask("hint", cmp.id, app.agent);
        if (!hint) break;
        cmp.state = await api("POST", `/api/games/${cmp.id}/actions`, { actions: hint.actions, expect: cmp.state.index });
        renderCompare();
      }
    } catch (e) {
      showError(e.message);
    } finally {
      cmp.syncing = false;
    }
  }

  function renderCompare() {
    const wrap = $("compare-wrap");
    wrap.hidden = app.mode !== "compare";
    if (wrap.hidden || !app.compare.state) return;
    const st = app.compare.state;
    $("compare-title").textContent = `${app.agent}, turn ${st.turn}${st.over ? " (game over)" : ""}`;
    $("compare-score").textContent = String(st.score);
    const svg = $("compare-sheet");
    svg.setAttribute("viewBox", `0 0 ${layout().width} ${layout().height}`);
    paint(svg, sheetBase(st, true));
  }

  // ------------------------------------------------------------------ drawing: the sheet
  function layout() {
    const gw = META.cols * C, gh = META.rows * C;
    const tx = GX + gw + 52;
    // the score track's rows, top to bottom: a row per box size, the bonus, the full columns, the score
    const trackTop = GY + 22, bonusY = trackTop + META.box_sizes.length * 42 + 4, columnsY = bonusY + 44;
    return { gw, gh, tx, trackTop, bonusY, columnsY, scoreY: columnsY + 70, width: tx + 168, height: GY + gh + 26 };
  }
  const cellXY = (r, c) => [GX + c * C, GY + (META.rows - 1 - r) * C];

  function rect(r, c, cls, inset = 0) {
    const [x, y] = cellXY(r, c);
    return `<rect class="${cls}" x="${x + inset}" y="${y + inset}" width="${C - 2 * inset}" height="${C - 2 * inset}" rx="${inset ? 4 : 0}"/>`;
  }
  function num(r, c, v, cls = "") {
    const [x, y] = cellXY(r, c);
    return `<text class="num ${cls}" x="${x + C / 2}" y="${y + C / 2 + 1}">${esc(v)}</text>`;
  }
  function cross(r, c, cls = "xmark") {
    const [x, y] = cellXY(r, c), d = 10;
    return `<path class="${cls}" d="M${x + d} ${y + d}L${x + C - d} ${y + C - d}M${x + C - d} ${y + d}L${x + d} ${y + C - d}"/>`;
  }
  function tickBox(x, y, w, h, done, label) {
    let s = `<rect class="box${done ? " done" : ""}" x="${x}" y="${y}" width="${w}" height="${h}" rx="3"/>`;
    s += `<text class="label" x="${x + w / 2}" y="${y + h / 2}">${esc(label)}</text>`;
    if (done) s += `<path class="tick" d="M${x + 4} ${y + 4}L${x + w - 4} ${y + h - 4}"/>`;
    return s;
  }

  function sheetBase(st, small = false) {
    const L = layout(), s = st.sheet, R = META.rows, K = META.cols;
    let h = "";
    for (let r = 0; r < R; r++) {
      const [, y] = cellXY(r, 0);
      h += `<text class="label" x="${GX - 14}" y="${y + C / 2}">${r}</text>`;
      for (let c = 0; c < K; c++) {
        const v = s.values[r][c];
        h += rect(r, c, `cell${r >= META.regular_rows ? " penalty" : ""}${v === 10 ? " x" : ""}`);
        if (v === 10) h += cross(r, c);
        else if (v >= 0) {
          h += num(r, c, v);
          if (s.used[r][c]) { const [x, y2] = cellXY(r, c); h += `<circle class="used" cx="${x + C / 2}" cy="${y2 + C / 2}" r="${C / 2 - 4}"/>`; }
        }
      }
      const done = r < META.regular_rows ? s.lines[r] : s.penalties[r - META.regular_rows];
      const label = r < META.regular_rows ? `+${META.line_points}` : `-${META.penalty_points}`;
      h += tickBox(GX + L.gw + 8, y + 6, 34, C - 12, done, label);
    }
    for (let c = 0; c < K; c++) h += `<text class="label" x="${GX + c * C + C / 2}" y="${GY + L.gh + 12}">${c}</text>`;
    const goY = GY + (R - META.regular_rows) * C;
    h += `<line class="goline" x1="${GX - 6}" y1="${goY}" x2="${GX + L.gw + 46}" y2="${goY}"/>`;
    // the score track: a row per size, the identical and consecutive boxes and the letter
    const tx = L.tx, top = L.trackTop;
    h += `<text class="label" x="${tx + 44}" y="${GY + 8}">same</text><text class="label" x="${tx + 92}" y="${GY + 8}">run</text>`;
    META.box_sizes.forEach((size, i) => {
      const y = top + i * 42;
      h += `<text class="label" x="${tx + 10}" y="${y + 16}">${size}</text>`;
      h += tickBox(tx + 22, y, 44, 32, s.identical[i], String(size));
      h += tickBox(tx + 70, y, 44, 32, s.consecutive[i], String(size));
      const cx = tx + 140, cy = y + 16;
      h += `<text class="letter" x="${cx}" y="${cy}">${META.letters[i]}</text>`;
      if (s.circled[i]) h += `<circle class="ring" cx="${cx}" cy="${cy}" r="13"/>`;
    });
    h += tickBox(tx + 22, L.bonusY, 92, 32, s.bonus, `bonus ${META.bonus_size}`);
    h += tickBox(tx + 22, L.columnsY, 44, 26, s.identical.every(Boolean), `+${META.full_column_points}`);
    h += tickBox(tx + 70, L.columnsY, 44, 26, s.consecutive.every(Boolean), `+${META.full_column_points}`);
    const sy = L.scoreY;
    h += `<text class="label left" x="${tx + 4}" y="${sy}">score</text>`;
    h += `<text class="num big" x="${tx + 84}" y="${sy + 30}">${st.score}</text>`;
    if (small) h += turnLabel(st, false);
    return h;
  }

  function turnLabel(st, phase = true) {
    const L = layout();
    return `<text class="label left" x="${L.tx + 4}" y="${L.scoreY + 66}">turn ${st.turn}${phase && st.over ? " \u00b7 game over" : ""}</text>`;
  }

  function renderSheet() {
    const svg = $("sheet"), L = layout();
    svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
    if (!document.getElementById("base")) svg.innerHTML = `<g id="base"></g><g id="turn-label"></g><g id="overlay"></g>`;
    paint(document.getElementById("base"), sheetBase(app.state));
    paint(document.getElementById("turn-label"), turnLabel(app.state));
    renderOverlay();
  }

  function renderOverlay() {
    const g = document.getElementById("overlay");
    if (!g || !app.state) return;
    paint(g, overlay(app.state));
  }

  function overlay(st) {
    const lg = st.legal, ui = app.ui, interactive = canPlay() && !app.busy;
    let h = "";
    st.pending_cells.forEach(([r, c], i) => {
      h += rect(r, c, "pendingcell");
      const v = st.phase === "arrange" ? (ui.assign[i] === null ? "?" : st.sorted_dice[ui.assign[i]]) : st.pending_values[i];
      h += num(r, c, v === undefined ? "?" : v);
    });
    if (st.phase === "wild" && lg.cell) h += rect(lg.cell[0], lg.cell[1], "wildcell") + num(lg.cell[0], lg.cell[1], "*");
    for (const [r, c] of st.selection) h += rect(r, c, "selcell") + num(r, c, st.sheet.values[r][c]);
    if (interactive) {
      if (st.phase === "start") {
        for (const o of lg.columns) h += rect(0, o.column, "opt", 3);
        if (lg.columns.some((o) => o.column === ui.col)) h += rect(0, ui.col, "ghost", 2) + num(0, ui.col, 1);
      } else if (st.phase === "place" || st.phase === "block") {
        const p = currentPlacement();
        if (p) for (const [r, c] of p.cells) h += rect(r, c, `ghost${st.phase === "block" ? " block" : ""}`, 2);
      } else if (st.phase === "combo") {
        for (const o of lg.select) h += rect(o.cell[0], o.cell[1], "opt", 3);
      }
      if (ui.cursor && (st.phase === "combo")) h += rect(ui.cursor[0], ui.cursor[1], "cursor", 1);
    }
    if (app.hint && app.showHint && app.hint.index === st.index && app.hint.game === st.id && !app.hover) h += drawing(app.hint.drawing, "");
    if (app.hover) h += drawing(app.hover.drawing, "hover");
    return h;
  }

  function drawing(d, cls) {
    let h = "";
    for (const [r, c] of d.blocks) h += rect(r, c, `hintcell ${cls}`, 3) + cross(r, c, `hintscored ${cls}`);
    for (const [r, c, v] of d.written) h += rect(r, c, `hintcell ${cls}`, 3) + num(r, c, v, `hintnum ${cls}`);
    for (const [r, c] of d.scored) {
      const [x, y] = cellXY(r, c);
      h += `<circle class="hintscored ${cls}" cx="${x + C / 2}" cy="${y + C / 2}" r="${C / 2 - 3}"/>`;
    }
    return h;
  }

  // ------------------------------------------------------------------ drawing: board, dice, panels
  function renderBoard() {
    const st = app.state, svg = $("solo-board");
    const W = 50, top = 28, H = 30, last = META.last_notch;
    svg.setAttribute("viewBox", `0 0 ${W * 5 + 34} ${top + (last + 1) * (H + 4) + 6}`);
    const legal = new Map(((st.legal.tiles) || []).map((o) => [o.tile, o]));
    const interactive = canPlay() && !app.busy;
    const slides = app.hint && app.showHint && app.hint.index === st.index ? app.hint.drawing.slides : null;
    const shown = app.hover ? app.hover.drawing.slides : slides;
    let h = "";
    META.letters.split("").forEach((letter, i) => {
      const x = 5 + i * W;
      h += `<text class="letter" x="${x + W / 2}" y="14">${letter}</text>`;
      if (st.sheet.circled[i]) h += `<circle class="ring" cx="${x + W / 2}" cy="14" r="11"/>`;
      for (let n = 0; n <= last; n++) {
        h += `<rect class="slot" x="${x + 3}" y="${top + n * (H + 4)}" width="${W - 6}" height="${H}" rx="4"/>`;
      }
      const n = st.notches[i], y = top + n * (H + 4);
      const cls = `tile${st.sheet.circled[i] ? " safe" : ""}${interactive && legal.has(i) ? " legal" : ""}`;
      const tab = interactive && legal.has(i) ? ' tabindex="0" role="button"' : "";
      // the tile's target is its whole column (a finger need not hit the tile itself: one tile a column)
      const hit = `<rect class="hit" x="${x}" y="0" width="${W}" height="${top + (last + 1) * (H + 4)}"/>`;
      h += `<g class="${cls}" data-tile="${i}" data-testid="tile-${letter}"${tab}>${hit}<rect class="body" x="${x + 4}" y="${y + 1}" width="${W - 8}" height="${H - 2}" rx="5"/>${glyph(st.tiles[i], x + W / 2, y + H / 2)}</g>`;
      if (shown && shown[i]) h += `<text class="slide-hint" x="${x + W / 2}" y="${top + (last + 1) * (H + 4) + 2}">+${shown[i]}</text>`;
    });
    h += `<text class="label go" data-testid="go-label" x="${W * 5 + 8}" y="${top + last * (H + 4) + H / 2}">GO!</text>`;
    paint(svg, h);
  }

  function glyph(shape, cx, cy, size = 6) {
    const o = META.orientations.find((x) => x.shape === shape);
    const rows = Math.max(...o.cells.map((c) => c[0])) + 1, cols = Math.max(...o.cells.map((c) => c[1])) + 1;
    return o.cells.map(([r, c]) => `<rect class="glyph" x="${cx - (cols * size) / 2 + c * size}" y="${cy + (rows * size) / 2 - (r + 1) * size}" width="${size - 1}" height="${size - 1}"/>`).join("");
  }

  function renderDice() {
    const st = app.state, box = $("dice");
    if (!st.dice) { paint(box, ""); return; }
    const used = new Set(app.ui.assign.filter((x) => x !== null));
    const arranging = st.phase === "arrange" && canPlay();
    let h = st.sorted_dice.map((v, i) => {
      const cls = `die${arranging && used.has(i) ? " used" : ""}${arranging && app.ui.picked === i ? " picked" : ""}`;
      return `<button type="button" class="${cls}" data-die="${i}" data-testid="die-${i}" title="die ${i + 1}">${v === "*" ? "\u2605" : v}</button>`;
    }).join("");
    h += `<button type="button" class="die shape" data-testid="shape-die" tabindex="-1" title="shape die">${st.shape_face === "*" ? "\u2605" : esc(st.shape_face)}</button>`;
    paint(box, h);
  }

  function renderControls() {
    const st = app.state, lg = st.legal, box = $("controls");
    const live = canPlay();
    let h = "";
    if (live) {
      if (st.phase === "start") {
        h += group(button("left", "\u2190") + button("drop", "Write the 1 here") + button("right", "\u2192"));
      } else if (st.phase === "slide" || st.phase === "star_slide") {
        for (const o of lg.tiles) h += `<button type="button" data-act="slide" data-tile="${o.tile}" data-testid="slide-${o.letter}" title="${esc(o.words)}">Slide ${o.letter} (${st.tiles[o.tile]})</button>`;
      } else if (st.phase === "place" || st.phase === "block") {
        const shapes = [...new Set(lg.placements.map((o) => o.shape))];
        if (shapes.length > 1) h += group(shapes.map((s) => `<button type="button" data-act="shape" data-shape="${s}" data-testid="shape-${s}" aria-pressed="${s === app.ui.shape}">${s}</button>`).join(""));
        h += group(button("rotate-back", "\u27F2") + button("rotate", "\u27F3") + button("flip", "\u21C6"));
        h += group(button("left", "\u2190") + button("drop", "Drop") + button("right", "\u2192"));
      } else if (st.phase === "arrange") {
        h += `<span data-testid="arrange-how">${TOUCH.matches ? "drag a die onto a cell, or tap a die then a cell" : "drag, or click a die then a cell, or type the values in cell order"}</span>` + button("clear", "Clear");
      } else if (st.phase === "wild") {
        h += `<span>choose the star's value (0\u2013${META.max_number})</span>`;
      } else if (st.phase === "combo") {
        const box = lg.confirm !== null ? lg.confirm_box : null; // the box it ticks, as the sheet names it
        const label = box ? `Score ${box.size} ${box.kind} (the ${box.kind === "identical" ? "same" : "run"} box ${box.size})` : "Score";
        h += `<button type="button" data-act="confirm" data-testid="confirm" ${box ? "" : "disabled"}>${label}</button>`;
        h += button("pass", "Pass");
      }
    }
    paint(box, h);
    $("notice").textContent = app.ui.tip || st.notice || "";
    const prompt = promptWords(st);
    $("prompt").textContent = app.mode === "replay" ? (app.replay.length ? `Replay: ${prompt}` : "Replay: choose a record file") : app.mode === "watch" ? `${app.agent}: ${prompt}` : prompt;
  }
  // the pending decision as a player says it (the phase's name is the engine's, not the game's)
  function promptWords(st) {
    if (st.over) return `Game over: ${overReason(st)}`;
    const shape = st.shape_face === "*" ? null : st.shape_face;
    const words = {
      start: "Write the 1: choose its column in the bottom row",
      slide: "Slide a tile",
      star_slide: "Star: slide one more tile",
      block: `Block ${st.block_letter} drops: choose where`,
      place: shape ? `Drop your ${shape}: choose where` : "Star: choose a shape and where to drop it",
      arrange: "Place the dice",
      wild: "Choose the star's value",
      combo: "Score a combination or pass",
    };
    return words[st.phase] || st.prompt;
  }

  // why the game ended, read off the sheet and the board (the rulebook's three endings)
  function overReason(st) {
    if (st.sheet.penalties.some(Boolean)) return "a number was written above the Game Over line";
    if (st.notches.every((n) => n >= META.last_notch)) return "every tile reached GO!";
    return "the tetromino could not be dropped anywhere";
  }
  const button = (act, label) => `<button type="button" data-act="${act}" data-testid="${act}">${label}</button>`;
  const group = (html) => `<span class="group">${html}</span>`; // wraps onto the next line as a whole
  const TOUCH = window.matchMedia("(pointer: coarse)"); // a finger, not a mouse: no keys to type

  function renderStatus() {
    const st = app.state;
    $("score").textContent = String(st.score);
    $("turn").textContent = String(st.turn);
    $("mode-label").textContent = `seed ${st.seed ?? "\u2014"} \u00b7 ${app.mode}`;
    for (const b of document.querySelectorAll("#modes button")) b.setAttribute("aria-pressed", String(b.dataset.mode === app.mode));
    const live = canPlay();
    $("undo").disabled = !live || st.index === 0;
    $("save-record").disabled = app.mode === "replay" && app.replay.length === 0; // nothing to save
    for (const id of ["hint", "play-hint", "analyse"]) $(id).disabled = !live;
    $("bar").hidden = app.mode === "watch";
    $("watch-bar").hidden = app.mode !== "watch";
    $("replay-bar").hidden = app.mode !== "replay";
    if (app.mode === "replay") renderReplayBar();
    const hint = app.hint && app.hint.index === st.index ? app.hint : null;
    const pts = hint ? ` (${hint.points >= 0 ? "+" : ""}${hint.points} point${Math.abs(hint.points) === 1 ? "" : "s"})` : "";
    $("hint-text").textContent = hint ? `${hint.agent}: ${hint.summary}${pts}` : "";
  }

  function renderBreakdown() {
    const b = app.state.breakdown;
    const names = { identical: "identical", consecutive: "consecutive", bonus: "bonus", column_bonuses: "full columns", lines: "lines (+2)", penalties: "penalty rows (\u22125)", total: "total" };
    paint($("breakdown"), Object.entries(names).map(([k, label]) => `<tr class="${k === "total" ? "total" : ""}"><td>${label}</td><td>${b[k]}</td></tr>`).join(""));
  }

  function renderOver() {
    const slot = $("over-slot"), st = app.state;
    if (!st.over) { paint(slot, ""); return; }
    const rows = [], who = app.mode === "watch" ? esc(app.agent) : "you";
    let placed = false;
    for (const h of META.high_scores) {
      if (!placed && st.score >= h) { rows.push(`<li class="you" data-testid="high-score-you">${st.score} ${who}</li>`); placed = true; }
      rows.push(`<li>${h}${h === 13 ? " Benoit" : ""}</li>`);
    }
    if (!placed) rows.push(`<li class="you" data-testid="high-score-you">${st.score} ${who}</li>`);
    const reason = overReason(st), stop = /[.!?]$/.test(reason) ? "" : "."; // "GO!" ends the sentence itself
    paint(slot, `<div class="game-over" data-testid="game-over"><h2>Game over: ${st.score} points</h2><div class="reason" data-testid="over-reason">The game ended because ${reason}${stop}</div><div>the rulebook's high scores, best first:</div><ol class="high-scores">${rows.join("")}</ol></div>`);
  }

  // The analysis: the agent's choice (starred) with the numbers it chose by, each row saying what
  // the turn does, column heads in words with a line of explanation each below the table.
  function renderAnalysis() {
    const table = $("analysis"), a = app.analysis, st = app.state;
    const wrap = $("analysis-wrap");
    wrap.classList.toggle("open", Boolean(a && a.index === st.index && app.mode !== "replay"));
    if (!a || a.index !== st.index) { paint(table, ""); paint($("analysis-notes"), ""); $("afterstate").textContent = ""; return; }
    const cols = a.columns, heads = a.headings || {};
    const headOf = (k) => (heads[k] ? heads[k].head : k);
    const head = `<thead><tr><th>#</th><th class="what">the turn</th>${cols.map((k) => `<th data-col="${k}" title="${esc(heads[k] ? heads[k].explain : "")}">${esc(headOf(k))}</th>`).join("")}</tr></thead>`;
    const fmt = (k, v) => {
      if (v === null || v === undefined) return "\u2014";
      if (k === "points" || k === "rolls") return String(v);
      return k === "spread" ? `\u00b1${Number(v).toFixed(1)}` : Number(v).toFixed(1);
    };
    const rows = a.candidates.map((c, i) => `<tr data-row="${i}" data-testid="candidate-${i}" class="${c.chosen ? "chosen" : ""}${app.hover === c ? " hover" : ""}"><td>${c.chosen ? "\u2605" : c.rank}</td><td class="what">${esc(c.summary)}</td>${cols.map((k) => `<td>${fmt(k, c[k])}</td>`).join("")}</tr>`).join("");
    paint(table, head + `<tbody>${rows}</tbody>`);
    const notes = cols.map((k) => `<dt>${esc(headOf(k))}</dt><dd>${esc(heads[k] ? heads[k].explain : "")}</dd>`).join("");
    const why = a.why || a.note || "";
    const tie = a.tie ? `<p class="why" data-testid="analysis-tie">${esc(a.tie)}.</p>` : "";
    paint($("analysis-notes"), `<p class="why" data-testid="analysis-why">\u2605 ${esc(why)}.</p>${tie}<dl>${notes}</dl><p class="tip">Point at a row (or tap it) to see it on the sheet; click it (or tap it again) to play it.</p>`);
    const shown = app.hover || a.candidates.find((c) => c.chosen);
    $("afterstate").textContent = shown ? `after it: ${Object.entries(shown.breakdown_after).map(([k, v]) => `${k.replace("_", " ")} ${v}`).join(", ")}` : "";
  }

  function renderWildPicker() {
    const st = app.state, box = $("wild-picker");
    if (st.phase !== "wild" || !canPlay() || app.ui.wishes[String(st.legal.cell)] !== undefined) { box.hidden = true; return; }
    box.innerHTML = st.legal.values.map((o) => `<button type="button" data-value="${o.value}" data-testid="wild-${o.value}">${o.value}</button>`).join("");
    box.hidden = false;
    const svg = $("sheet"), m = svg.getScreenCTM(), wrap = $("sheet-wrap").getBoundingClientRect();
    if (!m) return;
    // beside the grid, at the star's row: it covers no cell, the neighbours that decide the value least of all
    const [, y] = cellXY(st.legal.cell[0], st.legal.cell[1]);
    const px = m.a * (GX + META.cols * C) + m.e - wrap.left + 2, py = m.d * y + m.f - wrap.top;
    const bw = box.offsetWidth, bh = box.offsetHeight;
    box.style.left = `${Math.max(4, Math.min(px, wrap.width - bw - 2))}px`;
    box.style.top = `${Math.max(4, Math.min(py - bh / 2 + (m.d * C) / 2, wrap.height - bh - 4))}px`;
  }

  function sheetTitle() {
    // whose game the sheet shows: Watch's is the agent's own, never the player's
    const player = app.state ? app.state.player : "human";
    const whose = player === "human" ? "your game" : player === "record" ? "the recorded game" : `${player}'s game`;
    return app.mode === "replay" ? `replay of ${whose}` : whose;
  }

  // the view's name on the body, for the layouts that differ by view on a small screen
  function renderLayout() {
    const body = document.body, a = app.analysis;
    for (const m of MODES) body.classList.toggle(m, app.mode === m);
    body.classList.toggle("analysing", Boolean(a && app.state && a.index === app.state.index && app.mode !== "replay"));
    body.classList.toggle("show-agent", app.mode === "compare" && app.tab === "agent");
    $("sheet-tabs").hidden = app.mode !== "compare";
    for (const b of document.querySelectorAll("#sheet-tabs button")) b.setAttribute("aria-selected", String(b.dataset.tab === (app.tab || "mine")));
    $("tab-agent-name").textContent = `${app.agent}'s sheet`;
    $("sheet-title").textContent = sheetTitle();
  }

  function render() {
    if (!app.state || !META) return;
    renderLayout();
    renderSheet();
    renderBoard();
    renderDice();
    renderControls();
    renderStatus();
    renderBreakdown();
    renderOver();
    renderAnalysis();
    renderWildPicker();
    renderCompare();
  }

  function flash(points) {
    const f = $("flash");
    f.textContent = `${points > 0 ? "+" : ""}${points}`;
    f.className = `show${points < 0 ? " minus" : ""}`;
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => { f.className = ""; }, 1400);
  }

  // ------------------------------------------------------------------ decisions
  function placementsOf(st) { return st.legal.placements || []; }

  function ensureOrient() {
    const opts = placementsOf(app.state);
    if (!opts.length) return false;
    const have = new Set(opts.map((o) => o.orientation));
    if (app.ui.orient === null || !have.has(app.ui.orient)) {
      const pick = opts.find((o) => o.shape === app.ui.shape) || opts[0];
      app.ui.orient = pick.orientation;
    }
    app.ui.shape = META.orientations[app.ui.orient].shape;
    return true;
  }

  function currentPlacement() {
    if (!ensureOrient()) return null;
    let best = null;
    for (const o of placementsOf(app.state)) {
      if (o.orientation !== app.ui.orient) continue;
      if (!best || Math.abs(o.column - app.ui.col) < Math.abs(best.column - app.ui.col)) best = o;
    }
    return best;
  }

  const TAP_GHOST = "Tap the ghost itself to drop it there; a tap elsewhere moves it";

  function ghostCells() {
    // the cells a drop would fill now (the 1's cell before the first turn)
    if (app.state.phase === "start") return app.state.legal.columns.some((o) => o.column === app.ui.col) ? [[0, app.ui.col]] : [];
    const p = currentPlacement();
    return p ? p.cells : [];
  }

  function turnOrient(next) {
    if (!ensureOrient()) return;
    const have = new Set(placementsOf(app.state).map((o) => o.orientation));
    let o = app.ui.orient;
    for (let i = 0; i < 8; i++) {
      o = next(o);
      if (have.has(o)) { app.ui.orient = o; break; }
    }
    redraw();
  }
  const rotateCw = (o) => META.orientations[o].rotate;
  const rotateBack = (o) => rotateCw(rotateCw(rotateCw(o)));

  function chooseShape(shape) {
    const opt = placementsOf(app.state).find((o) => o.shape === shape);
    if (!opt) { showError(`the shape ${shape} cannot be dropped now`); return; }
    app.ui.shape = shape;
    app.ui.orient = opt.orientation;
    redraw();
  }

  function widthOf(orient) { return Math.max(...META.orientations[orient].cells.map((c) => c[1])) + 1; }

  function aimAt(col) {
    if (app.state.phase === "start") { app.ui.col = col; return; }
    if (!ensureOrient()) return;
    app.ui.col = col - Math.floor((widthOf(app.ui.orient) - 1) / 2);
  }

  function moveColumn(d) {
    const st = app.state;
    if (st.phase === "start") {
      const cols = st.legal.columns.map((o) => o.column);
      const i = cols.indexOf(app.ui.col);
      app.ui.col = cols[Math.max(0, Math.min(cols.length - 1, (i < 0 ? 0 : i) + d))];
    } else {
      const p = currentPlacement();
      if (!p) return;
      const cols = placementsOf(st).filter((o) => o.orientation === app.ui.orient).map((o) => o.column).sort((a, b) => a - b);
      const i = cols.indexOf(p.column);
      app.ui.col = cols[Math.max(0, Math.min(cols.length - 1, i + d))];
    }
    redraw();
  }

  function drop(t0) {
    const st = app.state;
    if (st.phase === "start") {
      const o = st.legal.columns.find((x) => x.column === app.ui.col);
      if (o) play([o.action], t0, "start");
      return;
    }
    const p = currentPlacement();
    if (p) play([p.action], t0, "drop");
  }

  function slide(tile, t0) {
    const o = (app.state.legal.tiles || []).find((x) => x.tile === tile);
    if (o) play([o.action], t0, "slide");
    else showError(`tile ${META.letters[tile]} cannot slide now`);
  }

  function assign(die, cell, t0) {
    const ui = app.ui, st = app.state;
    if (die === null || cell < 0 || cell >= ui.assign.length) return;
    const prev = ui.assign.indexOf(die);
    if (prev >= 0) ui.assign[prev] = null;
    ui.assign[cell] = die;
    ui.picked = null;
    const values = ui.assign.map((d) => (d === null ? null : String(st.sorted_dice[d])));
    if (values.every((v) => v !== null)) {
      const o = st.legal.arrangements.find((a) => a.values.every((v, i) => String(v) === values[i]));
      if (o) { play([o.action], t0, "arrange"); return; }
      showError("no legal arrangement writes these values");
    }
    redraw();
  }

  function typeValue(v, t0) {
    const st = app.state, ui = app.ui;
    if (st.phase === "wild") {
      const o = st.legal.values.find((x) => String(x.value) === v);
      if (o) play([o.action], t0, "wild");
      return;
    }
    if (st.phase !== "arrange") return;
    const cell = ui.assign.indexOf(null);
    if (cell < 0) return;
    const used = new Set(ui.assign.filter((x) => x !== null));
    let die = st.sorted_dice.findIndex((d, i) => !used.has(i) && String(d) === v);
    if (die < 0 && v !== "*") {
      die = st.sorted_dice.findIndex((d, i) => !used.has(i) && d === "*");
      if (die >= 0) ui.wishes[String(st.legal.cells[cell])] = Number(v);
    }
    if (die < 0) { showError(`no die ${v} is left to write`); return; }
    clearError();
    assign(die, cell, t0);
  }

  function unassignLast() {
    const ui = app.ui;
    for (let i = ui.assign.length - 1; i >= 0; i--) if (ui.assign[i] !== null) { ui.assign[i] = null; break; }
    redraw();
  }

  function autoWild() {
    // a star typed as a value while arranging: its value is played as soon as it is asked
    const st = app.state;
    if (st.phase !== "wild") return;
    const key = String(st.legal.cell), wish = app.ui.wishes[key];
    if (wish === undefined) return;
    const o = st.legal.values.find((x) => x.value === wish);
    delete app.ui.wishes[key];
    if (o) setTimeout(() => { if (app.state === st) play([o.action], performance.now(), "wild"); }, 0);
  }

  function selectCell(r, c, t0) {
    const o = (app.state.legal.select || []).find((x) => x.cell[0] === r && x.cell[1] === c);
    if (o) play([o.action], t0, "select");
  }

  function confirm(t0) { if (app.state.legal.confirm !== null && app.state.legal.confirm !== undefined) play([app.state.legal.confirm], t0, "confirm"); }
  function pass(t0) { if (app.state.legal.pass !== undefined) play([app.state.legal.pass], t0, "pass"); }

  function redraw() { renderOverlay(); renderDice(); renderControls(); renderWildPicker(); }

  // ------------------------------------------------------------------ pointer
  function cellAt(svg, x, y) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(x, y).matrixTransform(m.inverse());
    const col = Math.floor((p.x - GX) / C), row = META.rows - 1 - Math.floor((p.y - GY) / C);
    const inside = col >= 0 && col < META.cols && row >= 0 && row < META.rows;
    return { row, col: Math.max(0, Math.min(META.cols - 1, col)), inside, nearGrid: p.x < GX + META.cols * C + 8 };
  }

  function onSheetMove(ev) {
    // a mouse or a hovering pen aims as it moves, a finger as it slides on the sheet (a touch
    // makes no move but while it is down); only a tap or a click drops
    if (!canPlay()) return;
    const at = cellAt($("sheet"), ev.clientX, ev.clientY);
    if (!at || !at.nearGrid) return;
    const ph = app.state.phase;
    if (ph === "start" || ph === "place" || ph === "block") { aimAt(at.col); renderOverlay(); }
    else if (ph === "combo" && at.inside) { app.ui.cursor = [at.row, at.col]; renderOverlay(); }
  }

  function onSheetDown(ev) {
    if (!canPlay() || ev.button !== 0 || app.busy) return;
    const t0 = performance.now();
    const at = cellAt($("sheet"), ev.clientX, ev.clientY);
    if (!at || !at.nearGrid) return;
    const st = app.state, ph = st.phase;
    if (ph === "start" || ph === "place" || ph === "block") {
      if (ev.pointerType === "mouse") { aimAt(at.col); drop(t0); return; } // the ghost is where the mouse is
      // a finger or a pen drops only on the ghost's own cells; anywhere else it moves the ghost there
      if (at.inside && ghostCells().some(([r, c]) => r === at.row && c === at.col)) { drop(t0); return; }
      const before = ph === "start" ? app.ui.col : (currentPlacement() || {}).action;
      aimAt(at.col);
      const after = ph === "start" ? app.ui.col : (currentPlacement() || {}).action;
      app.ui.tip = before === after ? TAP_GHOST : null;
      redraw();
    } else if (ph === "arrange" && at.inside) {
      const cell = st.legal.cells.findIndex(([r, c]) => r === at.row && c === at.col);
      if (cell < 0) return;
      if (app.ui.picked !== null) assign(app.ui.picked, cell, t0);
      else if (app.ui.assign[cell] !== null) { app.ui.assign[cell] = null; redraw(); }
    } else if (ph === "combo" && at.inside) {
      app.ui.cursor = [at.row, at.col];
      selectCell(at.row, at.col, t0);
    }
  }

  let drag = null;
  function onDieDown(ev) {
    const el = ev.target.closest("[data-die]");
    if (!el || app.state.phase !== "arrange" || !canPlay()) return;
    ev.preventDefault();
    const die = Number(el.dataset.die);
    if (app.ui.assign.includes(die)) { app.ui.assign[app.ui.assign.indexOf(die)] = null; }
    app.ui.picked = die;
    drag = { die, x: ev.clientX, y: ev.clientY, ghost: null };
    window.addEventListener("pointermove", onDragMove);
    window.addEventListener("pointerup", onDragUp);
    window.addEventListener("pointercancel", onDragUp); // a touch the browser took back: no drop
    redraw();
  }
  function onDragMove(ev) {
    if (!drag) return;
    if (!drag.ghost && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 4) {
      drag.ghost = document.createElement("div");
      drag.ghost.className = "die dragging";
      drag.ghost.textContent = String(app.state.sorted_dice[drag.die]).replace("*", "\u2605");
      document.body.appendChild(drag.ghost);
    }
    if (drag.ghost) { drag.ghost.style.left = `${ev.clientX - 20}px`; drag.ghost.style.top = `${ev.clientY - 20}px`; }
  }
  function onDragUp(ev) {
    window.removeEventListener("pointermove", onDragMove);
    window.removeEventListener("pointerup", onDragUp);
    window.removeEventListener("pointercancel", onDragUp);
    const d = drag;
    drag = null;
    if (!d) return;
    if (d.ghost) d.ghost.remove();
    if (ev.type === "pointercancel") return;
    const at = cellAt($("sheet"), ev.clientX, ev.clientY);
    if (at && at.inside) {
      const cell = app.state.legal.cells.findIndex(([r, c]) => r === at.row && c === at.col);
      if (cell >= 0) assign(d.die, cell, performance.now());
    }
  }

  // ------------------------------------------------------------------ keyboard
  function onKey(ev) {
    const tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea" || !app.state) return;
    const k = ev.key, t0 = performance.now(), st = app.state, ph = st.phase;
    if (tag === "button" && (k === "Enter" || k === " ")) return; // the button's own click
    if (k === "Escape" && analysisOpen()) { closeAnalysis(); ev.preventDefault(); return; }
    if (app.mode === "replay") {
      const map = { ArrowLeft: -1, ArrowRight: 1 };
      if (k in map) { gotoStep(ev.shiftKey ? turnStep(map[k]) : app.replay.at + map[k], t0); ev.preventDefault(); }
      else if (k === "Home") gotoStep(0, t0);
      else if (k === "End") gotoStep(app.replay.length, t0);
      return;
    }
    if ((k === "z" && (ev.ctrlKey || ev.metaKey)) || k === "u" || k === "U") { ev.preventDefault(); undo(t0); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (k === "h" || k === "H") { requestHint("hint", t0); return; }
    if (k === "g" || k === "G") { playHint(t0); return; }
    if (k === "v" || k === "V") { requestHint("analysis", t0); return; }
    if (!canPlay() || app.busy) return;
    let handled = true;
    if (ph === "slide" || ph === "star_slide") {
      const i = "abcde".indexOf(k.toLowerCase()), j = "12345".indexOf(k);
      if (i >= 0 && k.length === 1) slide(i, t0); else if (j >= 0) slide(j, t0); else handled = false;
    } else if (ph === "start" || ph === "place" || ph === "block") {
      if (k === "ArrowLeft") moveColumn(-1);
      else if (k === "ArrowRight") moveColumn(1);
      else if (k === "Enter" || k === " " || k === "ArrowDown") drop(t0);
      else if (ph !== "start" && (k === "r" || k === "R")) turnOrient(ev.shiftKey ? rotateBack : rotateCw);
      else if (ph !== "start" && (k === "f" || k === "F")) turnOrient((o) => META.orientations[o].flip);
      else if (ph === "place" && "iotls".includes(k.toLowerCase()) && k.length === 1) chooseShape(k.toUpperCase());
      else handled = false;
    } else if (ph === "arrange" || ph === "wild") {
      if (/^[0-9]$/.test(k) || k === "*") typeValue(k, t0);
      else if (k === "Backspace" && ph === "arrange") unassignLast();
      else if (k === "Escape" && ph === "arrange") { app.ui.assign = app.ui.assign.map(() => null); redraw(); }
      else handled = false;
    } else if (ph === "combo") {
      const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [1, 0], ArrowDown: [-1, 0] };
      if (k in moves) {
        const cur = app.ui.cursor || [0, 0];
        app.ui.cursor = [Math.max(0, Math.min(META.rows - 1, cur[0] + moves[k][0])), Math.max(0, Math.min(META.cols - 1, cur[1] + moves[k][1]))];
        renderOverlay();
      } else if (k === " ") { if (app.ui.cursor) selectCell(app.ui.cursor[0], app.ui.cursor[1], t0); }
      else if (k === "Enter") confirm(t0);
      else if (k === "p" || k === "P") pass(t0);
      else if (k === "Tab") {
        const opts = st.legal.select;
        if (!opts.length) { handled = false; } else {
          const i = opts.findIndex((o) => app.ui.cursor && o.cell[0] === app.ui.cursor[0] && o.cell[1] === app.ui.cursor[1]);
          app.ui.cursor = opts[(i + (ev.shiftKey ? opts.length - 1 : 1)) % opts.length].cell.slice();
          renderOverlay();
        }
      } else handled = false;
    } else handled = false;
    if (handled) ev.preventDefault();
  }

  function closeAnalysis() {
    // closed in Watch, it stays closed: the turns to come are watched without it
    if (app.mode === "watch") $("watch-analyse").checked = false;
    app.analysis = null;
    app.hover = null;
    render();
  }
  const analysisOpen = () => $("analysis-wrap").classList.contains("open");

  // ------------------------------------------------------------------ modes and wiring
  // A view shows its role's game: Play and Compare the player's, Watch the agent's own game of
  // the seed; Replay steps through the game shown before it (or a record file chosen).
  async function setMode(mode, push = true) {
    if (!MODES.includes(mode)) mode = "play";
    stopWatch();
    const left = app.mode;
    if (mode === left && app.state) { updateUrl(); return; }
    app.mode = mode;
    app.hover = null;
    if (mode !== "replay" && (left === "replay" || roleOf(left) !== roleOf(mode) || !app.state)) {
      app.loading = true;
      try { await showRole(roleOf(mode)); } catch (e) { showError(e.message); } finally { app.loading = false; }
    }
    if (mode === "replay") enterReplay();
    if (app.state) render();
    if (mode === "compare" && app.state) startCompare();
    if (app.state) updateUrl(push);
  }

  async function showRole(role) {
    // the role's game as this tab left it (set up again if the server dropped it), or a new one
    const copy = app.games[role], agent = app.agent;
    const seed = app.state && app.state.seed !== null ? app.state.seed : app.seed;
    let data = null;
    if (copy && (role === "own" || (copy.seed === seed && copy.player === agent))) {
      data = await restore(copy).catch(() => null);
    }
    if (!data) {
      const player = role === "watch" ? agent : "human";
      data = await api("POST", "/api/games", { seed, agent, player, auto: role !== "watch" });
    }
    app.hint = app.analysis = null;
    setState(data);
  }

  function onControls(ev) {
    const b = ev.target.closest("[data-act]");
    if (!b || b.disabled) return;
    const t0 = performance.now(), act = b.dataset.act;
    const actions = {
      left: () => moveColumn(-1), right: () => moveColumn(1), drop: () => drop(t0),
      rotate: () => turnOrient(rotateCw), "rotate-back": () => turnOrient(rotateBack),
      flip: () => turnOrient((o) => META.orientations[o].flip),
      slide: () => slide(Number(b.dataset.tile), t0), shape: () => chooseShape(b.dataset.shape),
      clear: () => { app.ui.assign = app.ui.assign.map(() => null); app.ui.picked = null; redraw(); },
      confirm: () => confirm(t0), pass: () => pass(t0),
    };
    if (actions[act]) actions[act]();
  }

  async function saveRecord() {
    try {
      const record = await api("GET", `/api/games/${app.id}/record`);
      const blob = new Blob([JSON.stringify(record) + "\n"], { type: "application/json" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `numberdrop-seed${app.state.seed ?? "game"}.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    } catch (e) { showError(e.message); }
  }

  function wire() {
    const sheet = $("sheet");
    sheet.addEventListener("pointermove", onSheetMove);
    sheet.addEventListener("pointerdown", onSheetDown);
    $("dice").addEventListener("pointerdown", onDieDown);
    $("dice").addEventListener("keydown", (ev) => {
      const el = ev.target.closest("[data-die]");
      if (el && (ev.key === "Enter" || ev.key === " ")) { app.ui.picked = Number(el.dataset.die); redraw(); ev.preventDefault(); ev.stopPropagation(); }
    });
    $("solo-board").addEventListener("click", (ev) => {
      const g = ev.target.closest("[data-tile]");
      if (g && canPlay() && g.classList.contains("legal")) slide(Number(g.dataset.tile), performance.now());
    });
    $("solo-board").addEventListener("keydown", (ev) => {
      const g = ev.target.closest("[data-tile]");
      if (g && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); ev.stopPropagation(); slide(Number(g.dataset.tile), performance.now()); }
    });
    $("controls").addEventListener("click", onControls);
    $("wild-picker").addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-value]");
      if (b) typeValue(b.dataset.value, performance.now());
    });
    $("undo").addEventListener("click", () => undo(performance.now()));
    $("hint").addEventListener("click", () => requestHint("hint", performance.now()));
    $("play-hint").addEventListener("click", () => playHint(performance.now()));
    $("analyse").addEventListener("click", () => requestHint("analysis", performance.now()));
    $("save-record").addEventListener("click", saveRecord);
    $("cancel").addEventListener("click", cancelJob);
    $("watch-toggle").addEventListener("click", startWatch);
    $("watch-step").addEventListener("click", () => { stopWatch(); watchStep(); });
    $("replay-file").addEventListener("change", (ev) => { const f = ev.target.files[0]; if (f) loadRecord(f); });
    $("replay-first").addEventListener("click", () => gotoStep(0, performance.now()));
    $("replay-last").addEventListener("click", () => gotoStep(app.replay.length, performance.now()));
    $("replay-prev").addEventListener("click", () => gotoStep(app.replay.at - 1, performance.now()));
    $("replay-next").addEventListener("click", () => gotoStep(app.replay.at + 1, performance.now()));
    $("replay-prev-turn").addEventListener("click", () => gotoStep(turnStep(-1), performance.now()));
    $("replay-next-turn").addEventListener("click", () => gotoStep(turnStep(1), performance.now()));
    $("replay-branch").addEventListener("click", branch);
    const table = $("analysis");
    let pointer = "mouse", touched = -1e9;
    // a mouse previews the row it points at; a finger previews by a tap (below), and the mouse
    // events a browser makes up after a tap are not a mouse's
    const fromMouse = (ev) => ev.pointerType === "mouse" && performance.now() - touched > 1000;
    table.addEventListener("pointerover", (ev) => {
      if (!fromMouse(ev)) return;
      const tr = ev.target.closest("tr[data-row]");
      const row = tr && app.analysis ? app.analysis.candidates[Number(tr.dataset.row)] : null;
      if (row !== app.hover) { app.hover = row; renderOverlay(); renderBoard(); renderAnalysis(); }
    });
    table.addEventListener("pointerleave", (ev) => { if (!fromMouse(ev)) return; app.hover = null; renderOverlay(); renderBoard(); renderAnalysis(); });
    table.addEventListener("pointerdown", (ev) => {
      pointer = ev.pointerType || "mouse";
      if (pointer !== "mouse") touched = performance.now();
    });
    table.addEventListener("click", (ev) => {
      const tr = ev.target.closest("tr[data-row]");
      if (!tr || !app.analysis) return;
      const row = app.analysis.candidates[Number(tr.dataset.row)];
      if ((pointer !== "mouse" || !canPlay()) && app.hover !== row) { // a tap previews; a second tap plays
        app.hover = row; renderOverlay(); renderBoard(); renderAnalysis(); return;
      }
      if (canPlay()) { app.hover = null; play(row.actions, performance.now(), "candidate"); }
    });
    for (const b of document.querySelectorAll("#sheet-tabs button")) b.addEventListener("click", () => { app.tab = b.dataset.tab; renderLayout(); });
    $("analysis-close").addEventListener("click", closeAnalysis);
    for (const b of document.querySelectorAll("#modes button")) b.addEventListener("click", () => setMode(b.dataset.mode));
    window.addEventListener("popstate", () => { // Back or Forward: the view that address names
      const q = new URLSearchParams(location.search);
      setMode(q.get("mode") || "play", false);
    });
    $("new-game").addEventListener("click", () => {
      const raw = $("seed").value.trim();
      const seed = raw === "" ? Math.floor(Math.random() * 1e6) : seedOf(raw);
      if (seed === null) { showError(`the seed must be ${SEED_RULE}`); return; }
      newGame(seed, $("agent").value);
    });
    $("agent").addEventListener("change", () => { app.agent = $("agent").value; app.hint = app.analysis = null; if (app.state) { render(); updateUrl(); } });
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", (ev) => { // a pointer's click (detail > 0): the keys go back to the game
      const el = ev.target.closest && ev.target.closest("button, [role=button]");
      if (el && ev.detail > 0) el.blur();
    });
    for (const id of ["agent", "watch-speed", "watch-analyse", "replay-file"]) $(id).addEventListener("change", (ev) => ev.target.blur());
    window.addEventListener("resize", () => { if (app.state) renderWildPicker(); });
    setInterval(async () => { // keep this tab's game from being dropped as idle
      if (!app.id || document.hidden) return;
      try { await api("GET", `/api/games/${app.id}`); } catch (e) { if (e.status === 404 && app.mode !== "replay") recover(e); }
    }, 60000);
  }

  // a seed the server takes: a whole number from 0 to the largest the page can send exactly
  function seedOf(raw) {
    const text = String(raw).trim();
    if (!/^[0-9]{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) return null;
    return Number(text);
  }
  const SEED_RULE = `a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`;

  async function start() {
    try {
      META = await api("GET", "/api/meta");
    } catch (e) { showError(`the server does not answer: ${e.message}`); return; }
    $("agent").innerHTML = META.agents.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join("");
    wire();
    const q = new URLSearchParams(location.search);
    app.mode = MODES.includes(q.get("mode")) ? q.get("mode") : "play";
    const stored = saved() || {};
    app.games = { own: stored.own || null, watch: stored.watch || null };
    const copy = app.games[roleOf(app.mode)];
    const agent = q.get("agent") || (copy && copy.agent) || META.default_agent;
    let seed = q.has("seed") ? seedOf(q.get("seed")) : copy ? copy.seed : Math.floor(Math.random() * 1e6);
    if (seed === null) { seed = Math.floor(Math.random() * 1e6); showError(`the seed ${q.get("seed")} is not ${SEED_RULE}: seed ${seed} is played instead`); }
    $("seed").value = String(seed);
    app.agent = agent;
    if (copy && copy.seed === seed && copy.agent === agent) { // this tab's game of the view: taken up again
      try {
        app.loading = true;
        const data = await restore(copy);
        setState(data);
        if (app.mode === "compare") await startCompare();
        if (app.mode === "replay") enterReplay();
        updateUrl();
        app.loading = false;
        $("agent").value = agent;
        return;
      } catch (e) { app.loading = false; }
    }
    await newGame(seed, agent);
  }

  window.addEventListener("DOMContentLoaded", start);
})();
