// The MCP console page: talks to the bridge (agent/web) over its JSON API and event stream.
//
// Everything a server sends is untrusted: it reaches the DOM only through textContent and
// text nodes (never innerHTML), images only as data: URLs of a few raster types, and links
// to resources only as buttons that ask the bridge to read them.
(function () {
  "use strict";

  const CUT = 20000; // characters shown per text block before "show all"
  const MAX_DEPTH = 12; // nested objects/arrays a form builds before taking JSON text
  const LOG_CAP = 5000; // log entries kept in the page
  const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
  const KINDS = {
    tools: "tools",
    resources: "resources",
    templates: "resourceTemplates",
    prompts: "prompts",
  };
  const CAPABILITY = { tools: "tools", resources: "resources", templates: "resources", prompts: "prompts" };

  const state = {
    servers: new Map(), // name -> Server entry from the bridge
    selected: null, // the selected server's name
    tab: "tools",
    lists: new Map(), // "server\u0000tab" -> {items, nextCursor}
    requests: new Map(), // "server\u0000id" -> method of a logged request, to name its answer
    lastSeq: 0, // the newest log entry shown: a reconnected stream replays the older ones
  };

  // ---- the page's key -----------------------------------------------------------------------
  //
  // Every API request and the event stream carry the page's key in a header: the console's
  // cookie alone opens nothing, since browsers hand a 127.0.0.1 cookie to every other server
  // on 127.0.0.1 they visit. The key is in the page only when the one-time link served it: it
  // is taken out of the document at once and kept in this closure only (no storage, no URL),
  // so a reloaded page has none and asks for a new link.
  const KEY_HEADER = "X-Console-Key";
  const NO_KEY = "This page has no key for the console (it was reloaded, or opened without "
    + "the link): press Enter in the terminal where agent mcp console runs and open the new link.";
  const pageKey = (() => {
    const slot = document.querySelector('meta[name="console-key"]');
    const value = slot ? slot.content : "";
    if (slot) slot.remove();
    // The used link (/open?token=...) leaves the address bar: reloading it could only fail.
    if (location.pathname !== "/") history.replaceState(null, "", "/");
    return value;
  })();

  // ---- DOM helpers --------------------------------------------------------------------------

  const $ = (selector, root) => (root || document).querySelector(selector);
  const $$ = (selector, root) => Array.from((root || document).querySelectorAll(selector));

  /** An element with properties set as properties (never HTML) and children as text or nodes. */
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "on") for (const [type, fn] of Object.entries(value)) node.addEventListener(type, fn);
      else node[key] = value;
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      // Anything that is not already a node (a server may send a number where text belongs)
      // becomes text.
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  /** A name as text with a line-break opportunity after each _ - . / : (a <wbr>), so a long
   * tool name wraps between its words, never inside one (console.css breaks a single word only
   * when it alone is wider than the column). */
  function nameParts(name) {
    const parts = [];
    for (const piece of String(name).split(/(?<=[_\-./:])/)) {
      if (parts.length) parts.push(document.createElement("wbr"));
      parts.push(piece);
    }
    return parts;
  }

  /** A <pre> with the text, cut at CUT characters with a note and a "show all" button. */
  function textBlock(text, className) {
    const full = String(text);
    const pre = el("pre", { className });
    if (full.length <= CUT) {
      pre.textContent = full;
      return pre;
    }
    pre.textContent = full.slice(0, CUT);
    const note = el("div", { className: "cut-note" },
      `showing ${CUT.toLocaleString()} of ${full.length.toLocaleString()} characters `);
    const button = el("button", {
      type: "button",
      className: "show-all",
      on: { click: (event) => { event.stopPropagation(); pre.textContent = full; note.remove(); } },
    }, "show all");
    note.appendChild(button);
    return el("div", { className: "cut-block" }, pre, note);
  }

  const pretty = (value) => JSON.stringify(value, null, 2);

  function prettyText(text) {
    try {
      return pretty(JSON.parse(text));
    } catch (_) {
      return text;
    }
  }

  function banner(text) {
    const node = $("#banner");
    node.textContent = text;
    node.hidden = !text;
  }

  // ---- the bridge's JSON API ----------------------------------------------------------------

  /** POST (or GET without a body) to the bridge; resolves to {ok, status, data}. */
  async function api(path, body) {
    const init = body === undefined
      ? { method: "GET", credentials: "same-origin", headers: { [KEY_HEADER]: pageKey } }
      : {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", [KEY_HEADER]: pageKey },
          body: JSON.stringify(body),
        };
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      return { ok: false, status: 0, data: { error: `the console is not reachable (${error.message})` } };
    }
    let data;
    const type = response.headers.get("Content-Type") || "";
    if (type.includes("application/json")) data = await response.json();
    else data = { error: (await response.text()).trim() || `HTTP ${response.status}` };
    if (response.status === 401) banner(data.error || "open the link that agent mcp console printed");
    return { ok: response.ok, status: response.status, data };
  }

  const serverPath = (name, action) => `/api/servers/${encodeURIComponent(name)}/${action}`;

  // ---- servers ------------------------------------------------------------------------------

  function renderServer(server) {
    const list = $("#servers");
    let item = $$("li.server", list).find((node) => node.dataset.name === server.name);
    if (!item) {
      item = el("li", { className: "server", dataset: { name: server.name } });
      item.addEventListener("click", () => select(item.dataset.name));
      list.appendChild(item);
    }
    clear(item);
    item.className = `server state-${server.state}`;
    item.classList.toggle("selected", state.selected === server.name);
    item.classList.toggle("disabled", !server.enabled);
    const ready = server.state === "ready" || server.state === "starting";
    // An untrusted local server cannot start from here (the bridge would refuse): the button
    // says why and how to trust it, rather than failing after the click. (Trust granted in a
    // terminal reaches the page as a server event: no reload, which would lose the key.)
    // A server whose program exists nowhere cannot start, trusted or not: it says so, never
    // "trust it" (trusting what cannot run helps nothing).
    const missing = server.startable === false;
    const untrusted = server.trusted === false && !missing;
    const connect = el("button", {
      type: "button", className: "connect", disabled: ready || untrusted || missing,
      title: missing ? "Cannot start: its program is not found on this computer" : untrusted ? `Not trusted here: run agent mcp trust ${server.name} in a terminal` : "",
      on: { click: (event) => { event.stopPropagation(); connectServer(server.name); } },
    }, "Connect");
    const disconnect = el("button", {
      type: "button", className: "disconnect", disabled: !ready,
      on: { click: (event) => { event.stopPropagation(); disconnectServer(server.name); } },
    }, "Disconnect");
    append(item, [
      el("div", { className: "server-head" },
        el("span", { className: "name", title: server.name }, nameParts(server.name)),
        el("span", { className: "type" }, server.type),
        el("span", { className: "state" }, server.state)),
      el("div", { className: "note" }, missing
        ? "Connect is off: this server cannot start, its program is not found on this computer. agent mcp list shows its command, agent mcp edit corrects it; Connect turns on here once it can start."
        : untrusted
          ? `Connect is off: this server is not trusted here. Run agent mcp trust ${server.name} in a terminal; Connect turns on here once it is trusted.`
          : server.note || ""),
      server.error ? el("div", { className: "server-error" }, server.error) : null,
      el("div", { className: "server-actions" }, connect, disconnect),
    ]);
  }

  function updateServer(server) {
    const before = state.servers.get(server.name);
    state.servers.set(server.name, server);
    if (before && before.state === "ready" && server.state !== "ready") forgetLists(server.name);
    renderServer(server);
    if (state.selected === server.name) {
      renderInfo();
      if (server.state === "ready" && (!before || before.state !== "ready")) showTab(state.tab);
      else if (server.state !== "ready") renderList(state.tab);
    }
  }

  function forgetLists(name) {
    for (const key of Array.from(state.lists.keys())) if (key.startsWith(`${name}\u0000`)) state.lists.delete(key);
  }

  function select(name) {
    if (state.selected !== name) {
      state.selected = name;
      clear($("#form-area"));
      clear($("#result"));
    }
    for (const item of $$("li.server")) item.classList.toggle("selected", item.dataset.name === name);
    renderInfo();
    showTab(state.tab);
  }

  async function connectServer(name) {
    select(name);
    const { ok, data } = await api(serverPath(name, "connect"), {});
    if (ok) updateServer(data.server);
    else showError(`${name}: ${data.error}`);
  }

  async function disconnectServer(name) {
    const { ok, data } = await api(serverPath(name, "disconnect"), {});
    if (ok) updateServer(data.server);
    else showError(`${name}: ${data.error}`);
  }

  function renderInfo() {
    const box = $("#info");
    clear(box);
    const server = state.servers.get(state.selected);
    if (!server) {
      box.appendChild(el("p", { className: "placeholder" }, "Pick a server on the left and connect it."));
      return;
    }
    const head = el("div", { className: "info-head" },
      el("h2", {}, server.name),
      el("span", { className: `badge state-${server.state}` }, server.state));
    box.appendChild(head);
    if (server.note) box.appendChild(el("p", { className: "note" }, server.note));
    if (server.error) box.appendChild(el("p", { className: "server-error" }, server.error));
    const info = server.info;
    if (!info) {
      if (server.state !== "ready") box.appendChild(el("p", { className: "placeholder" }, "Not connected."));
      return;
    }
    const facts = el("dl", { className: "facts" },
      el("dt", {}, "server"), el("dd", { className: "server-name" }, `${info.name} ${info.version || ""}`.trim()),
      el("dt", {}, "protocol"), el("dd", { className: "protocol" }, info.protocolVersion || ""),
      el("dt", {}, "capabilities"),
      el("dd", { className: "capabilities" }, Object.keys(info.capabilities || {}).join(", ") || "none"));
    box.appendChild(facts);
    if (info.instructions) {
      box.appendChild(el("details", { className: "instructions" },
        el("summary", {}, "instructions"), textBlock(info.instructions, "text")));
    }
  }

  // ---- tabs and lists -----------------------------------------------------------------------

  function showTab(tab) {
    state.tab = tab;
    for (const button of $$("button.tab")) button.classList.toggle("active", button.dataset.tab === tab);
    for (const pane of $$(".pane")) pane.hidden = pane.dataset.pane !== tab;
    $(".work").classList.toggle("raw-mode", tab === "raw");
    if (tab !== "raw") loadFirstPage(tab);
  }

  function listKey(tab) {
    return `${state.selected}\u0000${tab}`;
  }

  function loadFirstPage(tab) {
    const server = state.servers.get(state.selected);
    if (server && server.state === "ready" && !state.lists.has(listKey(tab))) {
      // Claimed before the request: a server event and a click must not both load page one.
      state.lists.set(listKey(tab), { items: [], nextCursor: null, note: "loading…" });
      renderList(tab);
      loadPage(tab, null);
    } else {
      renderList(tab);
    }
  }

  async function loadPage(tab, cursor) {
    const name = state.selected;
    const server = state.servers.get(name);
    const capability = CAPABILITY[tab];
    if (!server) return;
    const capabilities = server.info && server.info.capabilities;
    if (capabilities && typeof capabilities === "object" && !(capability in capabilities)) {
      state.lists.set(listKey(tab), { items: [], nextCursor: null, note: `${name} has no ${capability}` });
      renderList(tab);
      return;
    }
    const key = `${name}\u0000${tab}`;
    const { ok, data } = await api(serverPath(name, "list"), { kind: KINDS[tab], cursor });
    const list = state.lists.get(key) || { items: [], nextCursor: null };
    if (ok) {
      const items = Array.isArray(data.items) ? data.items : [];
      list.items = list.items.concat(items.filter((item) => item && typeof item === "object"));
      list.nextCursor = data.nextCursor || null;
      list.note = null;
    } else {
      list.note = data.error;
    }
    state.lists.set(key, list);
    if (state.selected === name) renderList(tab);
  }

  function itemKey(tab, item) {
    if (tab === "resources") return item.uri;
    return item.name;
  }

  function renderList(tab) {
    if (tab === "raw") return;
    const box = $(`#${tab}`);
    clear(box);
    const server = state.servers.get(state.selected);
    if (!server || server.state !== "ready") {
      box.appendChild(el("li", { className: "placeholder" }, server ? "Connect the server to list these." : ""));
      return;
    }
    const list = state.lists.get(listKey(tab));
    if (!list) return;
    if (list.note) box.appendChild(el("li", { className: "placeholder" }, list.note));
    for (const item of list.items) {
      const key = String(itemKey(tab, item));
      const li = el("li", { className: "item", dataset: { name: key }, tabIndex: 0 },
        el("div", { className: "item-name", title: item.title ? `${item.title}` : key },
          nameParts(item.title ? `${item.title}` : key)),
        item.title ? el("div", { className: "item-sub", title: key }, nameParts(key)) : null,
        tab === "templates" ? el("div", { className: "item-sub" }, item.uriTemplate || "") : null,
        tab === "resources" && item.name ? el("div", { className: "item-sub" }, item.name) : null,
        item.description ? el("div", { className: "item-desc" }, item.description) : null);
      li.addEventListener("click", () => openItem(tab, item, li));
      li.addEventListener("keydown", (event) => { if (event.key === "Enter") openItem(tab, item, li); });
      box.appendChild(li);
    }
    if (!list.items.length && !list.note) box.appendChild(el("li", { className: "placeholder" }, "none"));
    if (list.nextCursor) {
      box.appendChild(el("li", { className: "more-row" }, el("button", {
        type: "button", className: "more",
        on: { click: (event) => { event.currentTarget.disabled = true; loadPage(tab, list.nextCursor); } },
      }, "More")));
    }
  }

  function openItem(tab, item, li) {
    for (const node of $$("li.item.open")) node.classList.remove("open");
    li.classList.add("open");
    clear($("#result"));
    if (tab === "tools") openTool(item);
    else if (tab === "resources") openResource(item);
    else if (tab === "templates") openTemplate(item);
    else if (tab === "prompts") openPrompt(item);
  }

  // ---- forms from JSON Schema ---------------------------------------------------------------

  /** The JSON type a schema asks for: "string", "integer", ..., "enum" or "any". */
  function fieldType(schema) {
    if (!schema || typeof schema !== "object") return "any";
    if (enumOptions(schema)) return "enum";
    let type = schema.type;
    if (Array.isArray(type)) type = type.find((t) => t !== "null");
    if (!type && schema.properties) type = "object";
    if (!type && Array.isArray(schema.anyOf || schema.oneOf)) {
      const options = (schema.anyOf || schema.oneOf).filter((option) => option && option.type !== "null");
      if (options.length === 1) return fieldType(options[0]);
    }
    return ["string", "number", "integer", "boolean", "object", "array"].includes(type) ? type : "any";
  }

  /**
   * The choices of an enum field as [{value, label}]: `enum` (with legacy `enumNames`), or a
   * oneOf/anyOf of `const`s with titles (MCP's titled enums); null for other fields.
   */
  function enumOptions(schema) {
    if (Array.isArray(schema.enum)) {
      const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
      return schema.enum.map((value, index) => ({ value, label: String(names[index] ?? value) }));
    }
    const choices = schema.oneOf || schema.anyOf;
    if (Array.isArray(choices) && choices.length && choices.every((c) => c && typeof c === "object" && "const" in c)) {
      return choices.map((c) => ({ value: c.const, label: String(c.title ?? c.const) }));
    }
    return null;
  }

  function nonNull(schema) {
    if (schema && !schema.type && Array.isArray(schema.anyOf || schema.oneOf)) {
      const options = (schema.anyOf || schema.oneOf).filter((option) => option && option.type !== "null");
      if (options.length === 1) return Object.assign({}, options[0], schema.description ? { description: schema.description } : {});
    }
    return schema || {};
  }

  /**
   * Build the controls for one field into `parent`; returns a field object
   * {read(problems) -> value or undefined, setName(name)}.
   */
  function buildField(parent, rawSchema, name, label, required, depth) {
    const schema = nonNull(rawSchema);
    // Past MAX_DEPTH levels a field is one JSON value: a server's schema cannot nest the page
    // into a stack overflow.
    const type = depth > MAX_DEPTH && ["object", "array"].includes(fieldType(schema)) ? "any" : fieldType(schema);
    if (type === "object" && schema.properties) return buildObject(parent, schema, name, label, required, depth);
    if (type === "array" && schema.items && typeof schema.items === "object" && enumOptions(schema.items)) {
      return buildChoices(parent, schema, name, label, required, depth);
    }
    if (type === "array") return buildArray(parent, schema, name, label, required, depth);
    const wrap = el("div", { className: `field type-${type}` });
    const id = `f-${Math.random().toString(36).slice(2)}`;
    const labelNode = el("label", { htmlFor: id, className: "field-label" }, label,
      required ? el("span", { className: "required", title: "required" }, " *") : null,
      el("span", { className: "field-type" }, ` ${type === "any" ? "JSON" : type}`));
    let control;
    let options = null;
    if (type === "enum") {
      control = el("select", { id, name });
      control.appendChild(el("option", { value: "" }, required ? "— choose —" : "(leave out)"));
      options = enumOptions(schema);
      options.forEach((option, index) => control.appendChild(el("option", { value: String(index) }, option.label)));
      if (schema.default !== undefined) {
        const index = options.findIndex((option) => option.value === schema.default);
        if (index >= 0) control.value = String(index);
      }
    } else if (type === "boolean") {
      control = el("input", { id, name, type: "checkbox", checked: schema.default === true });
      control.dataset.touched = schema.default !== undefined || required ? "yes" : "";
      control.addEventListener("change", () => { control.dataset.touched = "yes"; });
    } else if (type === "any" || (type === "object")) {
      control = el("textarea", { id, name, rows: 3, spellcheck: false, placeholder: "JSON value" });
      if (schema.default !== undefined) control.value = pretty(schema.default);
    } else {
      control = el("input", { id, name, type: "text", autocomplete: "off", spellcheck: false });
      if (type === "number" || type === "integer") control.inputMode = type === "integer" ? "numeric" : "decimal";
      if (schema.format === "password") control.type = "password";
      if (schema.default !== undefined && schema.default !== null) control.value = String(schema.default);
    }
    wrap.append(labelNode, control);
    if (schema.description) wrap.appendChild(el("div", { className: "help" }, schema.description));
    parent.appendChild(wrap);
    const initial = type === "boolean" ? control.checked : control.value;
    return {
      setName(newName) { control.name = newName; name = newName; },
      // Unchanged from what the form started with: an optional object left alone is left out.
      isEmpty() { return (type === "boolean" ? control.checked : control.value) === initial; },
      read(problems) {
        control.classList.remove("invalid");
        const before = problems.length;
        // A person knows a field by its label (the schema's title); a nested one by its path.
        const value = readControl(control, schema, type, depth === 0 ? label : name, required, problems, options);
        if (problems.length > before) control.classList.add("invalid");
        return value;
      },
    };
  }

  function readControl(control, schema, type, name, required, problems, options) {
    if (type === "boolean") return control.dataset.touched ? control.checked : undefined;
    if (type === "enum") {
      if (control.value === "") {
        if (required) problems.push(`${name}: required`);
        return undefined;
      }
      return options[Number(control.value)].value;
    }
    const raw = control.value;
    if (raw.trim() === "" && !(type === "string" && raw !== "")) {
      if (required) problems.push(`${name}: required`);
      return undefined;
    }
    if (type === "number" || type === "integer") return readNumber(raw.trim(), schema, type, name, problems);
    if (type === "string") return checkString(raw, schema, name, problems);
    try {
      return JSON.parse(raw);
    } catch (error) {
      problems.push(`${name}: not valid JSON (${error.message})`);
      return undefined;
    }
  }

  function readNumber(text, schema, type, name, problems) {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
      problems.push(`${name}: not a number: ${text}`);
      return undefined;
    }
    const value = Number(text);
    if (type === "integer" && !Number.isInteger(value)) {
      problems.push(`${name}: must be a whole number, not ${text}`);
      return undefined;
    }
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${name}: at least ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${name}: at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) problems.push(`${name}: more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) problems.push(`${name}: less than ${schema.exclusiveMaximum}`);
    return value;
  }

  // MCP's string formats, as agent/mcp/forms/formats.py checks them in the terminal.
  const FORMATS = {
    email: [/^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/, "enter an email address, like name@example.com"],
    uri: [/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, "enter a full address with its scheme, like https://example.com/page"],
    date: [/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, "enter a date as YYYY-MM-DD, like 2026-03-31"],
    "date-time": [/^\d{4}-\d{2}-\d{2}[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
      "enter a date and time with its zone, like 2026-03-31T14:30:00Z"],
  };

  function checkString(value, schema, name, problems) {
    const length = Array.from(value).length;
    if (typeof schema.minLength === "number" && length < schema.minLength) problems.push(`${name}: at least ${plural(schema.minLength, "character")}`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) problems.push(`${name}: at most ${plural(schema.maxLength, "character")}`);
    const expected = FORMATS[schema.format];
    if (expected && !expected[0].test(value)) problems.push(`${name}: ${expected[1]}`);
    // No `pattern` check here: a server's regex can backtrack for hours and the tab could not
    // stop it. The bridge checks it with a time limit and answers 400 naming the problem.
    return value;
  }

  /**
   * A multi-select (an array of enum or titled const items): one checkbox per choice, showing
   * its title and sending its value; the default's choices start checked.
   */
  function buildChoices(parent, schema, name, label, required, depth) {
    const fieldset = el("fieldset", { className: "choices", dataset: { array: name } }, el("legend", {}, label,
      required ? el("span", { className: "required", title: "required" }, " *") : null));
    if (schema.description) fieldset.appendChild(el("div", { className: "help" }, schema.description));
    const options = enumOptions(schema.items);
    const picked = Array.isArray(schema.default) ? schema.default : [];
    const boxes = options.map((option, index) => {
      const box = el("input", { type: "checkbox", name: `${name}.${index}`, checked: picked.includes(option.value) });
      fieldset.appendChild(el("label", { className: "choice" }, box, ` ${option.label}`));
      return box;
    });
    parent.appendChild(fieldset);
    const shown = depth === 0 ? label : name;
    const initial = boxes.map((box) => box.checked).join();
    return {
      setName(newName) { name = newName; fieldset.dataset.array = newName; },
      isEmpty() { return boxes.map((box) => box.checked).join() === initial; },
      read(problems) {
        const values = options.filter((_, index) => boxes[index].checked).map((option) => option.value);
        if (!values.length && !required) return undefined;
        if (typeof schema.minItems === "number" && values.length < schema.minItems) problems.push(`${shown}: choose at least ${schema.minItems}`);
        if (typeof schema.maxItems === "number" && values.length > schema.maxItems) problems.push(`${shown}: choose at most ${schema.maxItems}`);
        return values;
      },
    };
  }

  function buildObject(parent, schema, name, label, required, depth) {
    const fieldset = el("fieldset", { className: "object" }, el("legend", {}, label,
      required ? el("span", { className: "required", title: "required" }, " *") : null));
    if (schema.description) fieldset.appendChild(el("div", { className: "help" }, schema.description));
    parent.appendChild(fieldset);
    const fields = buildProperties(fieldset, schema, name, depth + 1);
    return {
      setName(newName) {
        for (const [key, field] of fields) field.setName(`${newName}.${key}`);
        name = newName;
      },
      isEmpty() { return Array.from(fields.values()).every((field) => field.isEmpty()); },
      read(problems) {
        if (!required && this.isEmpty()) return undefined;
        return readProperties(fields, problems);
      },
    };
  }

  /** Controls for every property of an object schema; returns Map(property -> field). */
  function buildProperties(parent, schema, prefix, depth) {
    const fields = new Map();
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [key, property] of Object.entries(schema.properties || {})) {
      const name = prefix ? `${prefix}.${key}` : key;
      const label = property && property.title ? property.title : key;
      fields.set(key, buildField(parent, property, name, label, required.has(key), depth));
    }
    return fields;
  }

  function readProperties(fields, problems) {
    const value = {};
    for (const [key, field] of fields) {
      const item = field.read(problems);
      // defineProperty: a field called "__proto__" is data like any other.
      if (item !== undefined) Object.defineProperty(value, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
    return value;
  }

  function buildArray(parent, schema, name, label, required, depth) {
    const fieldset = el("fieldset", { className: "array", dataset: { array: name } }, el("legend", {}, label,
      required ? el("span", { className: "required", title: "required" }, " *") : null));
    if (schema.description) fieldset.appendChild(el("div", { className: "help" }, schema.description));
    const rows = el("div", { className: "rows" });
    const rowFields = [];
    const itemSchema = schema.items && typeof schema.items === "object" ? schema.items : {};
    const renumber = () => rowFields.forEach((entry, index) => {
      entry.field.setName(`${name}.${index}`);
      entry.label.textContent = `${index}`;
    });
    const addRow = (value) => {
      const row = el("div", { className: "array-row" });
      const index = rowFields.length;
      const labelNode = el("span", { className: "row-index" }, `${index}`);
      row.appendChild(labelNode);
      const body = el("div", { className: "row-body" });
      row.appendChild(body);
      const field = buildField(body, itemSchema, `${name}.${index}`, "item", false, depth + 1);
      const entry = { field, label: labelNode };
      const remove = el("button", {
        type: "button", className: "remove", title: "remove this item",
        on: { click: () => { rowFields.splice(rowFields.indexOf(entry), 1); row.remove(); renumber(); } },
      }, "Remove");
      row.appendChild(remove);
      rowFields.push(entry);
      rows.appendChild(row);
      if (value !== undefined) {
        const control = $("input, select, textarea", body);
        if (control && control.type !== "checkbox") control.value = typeof value === "string" ? value : JSON.stringify(value);
      }
    };
    fieldset.append(rows, el("button", { type: "button", className: "add", on: { click: () => addRow() } }, "Add item"));
    if (Array.isArray(schema.default)) schema.default.forEach((value) => addRow(value));
    parent.appendChild(fieldset);
    return {
      setName(newName) { name = newName; fieldset.dataset.array = newName; renumber(); },
      isEmpty() { return rowFields.length === 0; },
      read(problems) {
        if (!rowFields.length && !required) return undefined;
        const shown = depth === 0 ? label : name;
        const values = [];
        rowFields.forEach((entry, index) => {
          const value = entry.field.read(problems);
          if (value === undefined) problems.push(`${shown} ${index + 1}: empty item (fill it or remove it)`);
          else values.push(value);
        });
        if (typeof schema.minItems === "number" && values.length < schema.minItems) problems.push(`${shown}: at least ${plural(schema.minItems, "item")}`);
        if (typeof schema.maxItems === "number" && values.length > schema.maxItems) problems.push(`${shown}: at most ${plural(schema.maxItems, "item")}`);
        return values;
      },
    };
  }

  /**
   * A form for an object schema: fields, problems list and a submit button. `onSubmit(value)`
   * runs only when the values pass the checks; it may return problems from the bridge.
   */
  function schemaForm(options) {
    const form = el("form", { id: options.id || "", className: options.className || "schema-form", noValidate: true });
    if (options.dataset) Object.assign(form.dataset, options.dataset);
    const schema = options.schema && typeof options.schema === "object" ? options.schema : {};
    const fields = buildProperties(form, schema, "", 0);
    if (!fields.size) form.appendChild(el("p", { className: "placeholder" }, "No arguments."));
    const problems = el("ul", { className: "problems" });
    const buttons = el("div", { className: "row buttons" },
      el("button", { type: "submit", className: `primary ${options.submitClass || ""}`.trim() }, options.submit || "Send"),
      ...(options.extraButtons || []));
    form.append(problems, buttons);
    form.showProblems = (list) => {
      clear(problems);
      for (const problem of list) problems.appendChild(el("li", {}, problem));
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const found = [];
      const value = readProperties(fields, found);
      form.showProblems(found);
      if (found.length) return;
      const submit = $("button[type=submit]", form);
      submit.disabled = true;
      try {
        await options.onSubmit(value);
      } finally {
        submit.disabled = false;
      }
    });
    return form;
  }

  function showForm(title, subtitle, description, form) {
    const area = $("#form-area");
    clear(area);
    append(area, [
      el("div", { className: "form-head" },
        el("h3", { title }, nameParts(title)),
        subtitle ? el("span", { className: "item-sub" }, subtitle) : null),
      description ? textBlock(description, "description") : null,
      form]);
  }

  // ---- tools, resources, templates, prompts ---------------------------------------------------

  function openTool(tool) {
    const server = state.selected;
    const form = schemaForm({
      id: "call-form",
      schema: tool.inputSchema,
      submit: "Call tool",
      onSubmit: async (args) => {
        const { ok, data } = await api(serverPath(server, "call"), { tool: tool.name, arguments: args });
        if (ok) renderResult(`${tool.name}`, data.result, server);
        else showBridgeError(form, data.error);
      },
    });
    showForm(tool.title || tool.name, tool.title ? tool.name : null, tool.description, form);
    const hints = Object.entries(tool.annotations || {}).filter(([key, value]) => key.endsWith("Hint") && typeof value === "boolean");
    if (hints.length) {
      $(".form-head", $("#form-area")).appendChild(el("span", { className: "hints" },
        hints.map(([key, value]) => el("span", { className: `badge hint-${value}` }, `${key.replace(/Hint$/, "")}: ${value}`))));
    }
  }

  function openResource(resource) {
    const server = state.selected;
    const form = schemaForm({
      id: "call-form",
      schema: {},
      submit: "Read",
      onSubmit: () => readResource(server, resource.uri, form),
    });
    showForm(resource.title || resource.name || resource.uri, resource.uri, resource.description, form);
    readResource(server, resource.uri, form);
  }

  async function readResource(server, uri, form) {
    const { ok, data } = await api(serverPath(server, "read"), { uri });
    if (ok) renderContents(uri, data.result, server);
    else if (form) showBridgeError(form, data.error);
    else showError(`${uri}: ${data.error}`);
  }

  function openTemplate(template) {
    const server = state.selected;
    const names = templateVariables(template.uriTemplate || "");
    const schema = { type: "object", properties: {}, required: names };
    for (const name of names) schema.properties[name] = { type: "string" };
    const form = schemaForm({
      id: "call-form",
      schema,
      submit: "Read",
      onSubmit: (values) => readResource(server, expandTemplate(template.uriTemplate || "", values), form),
    });
    showForm(template.title || template.name, template.uriTemplate, template.description, form);
  }

  function openPrompt(prompt) {
    const server = state.selected;
    const schema = { type: "object", properties: {}, required: [] };
    for (const argument of prompt.arguments || []) {
      if (!argument || typeof argument.name !== "string") continue;
      schema.properties[argument.name] = { type: "string", title: argument.title || argument.name, description: argument.description };
      if (argument.required) schema.required.push(argument.name);
    }
    const form = schemaForm({
      id: "call-form",
      schema,
      submit: "Get prompt",
      onSubmit: async (args) => {
        const { ok, data } = await api(serverPath(server, "prompt"), { name: prompt.name, arguments: args });
        if (ok) renderPrompt(prompt.name, data.result, server);
        else showBridgeError(form, data.error);
      },
    });
    showForm(prompt.title || prompt.name, prompt.title ? prompt.name : null, prompt.description, form);
    const info = state.servers.get(server) && state.servers.get(server).info;
    const capabilities = info && info.capabilities;
    // A server without the completions capability is not asked (it has nothing to offer).
    if (capabilities && typeof capabilities === "object" && "completions" in capabilities) {
      const names = Object.keys(schema.properties);
      names.forEach((name, index) => offerCompletions(server, prompt.name, form, name, names.slice(0, index)));
    }
  }

  const COMPLETION_DELAY_MS = 200; // typing pauses this long before the server is asked
  const COMPLETIONS_SHOWN = 12;

  /** The form's text field for an argument (found by property: a name is data, not a selector). */
  function argumentControl(form, name) {
    return $$("input", form).find((control) => control.name === name) || null;
  }

  /**
   * Under an argument's field, a small list of the values the server suggests for what is typed
   * (completion/complete, the arguments before it as context), as the chat's Tab offers them.
   * The values are shown as text (button labels), and a click puts one into the field.
   */
  function offerCompletions(server, prompt, form, name, earlier) {
    const control = argumentControl(form, name);
    if (!control) return;
    const list = el("ul", { className: "completions", hidden: true });
    list.setAttribute("aria-label", `suggestions for ${name}`);
    control.insertAdjacentElement("afterend", list);
    let asked = 0; // only the newest question's answer is shown
    let timer = null;
    const show = (values, more) => {
      clear(list);
      for (const value of values.slice(0, COMPLETIONS_SHOWN)) {
        list.appendChild(el("li", {}, el("button", {
          type: "button", className: "completion", title: "use this value",
          on: { click: () => { control.value = value; list.hidden = true; control.focus(); } },
        }, value)));
      }
      const left = Math.max(0, values.length - COMPLETIONS_SHOWN) + (more || 0);
      if (left > 0) list.appendChild(el("li", { className: "more-values" }, `${left} more: type to narrow`));
      list.hidden = !values.length;
    };
    const ask = async () => {
      const mine = ++asked;
      const context = {};
      for (const before of earlier) {
        const given = argumentControl(form, before);
        if (given && given.value !== "") Object.defineProperty(context, before, { value: given.value, enumerable: true });
      }
      const { ok, data } = await api(serverPath(server, "complete"), { prompt, argument: name, value: control.value, context });
      if (mine !== asked || !form.isConnected) return;
      const values = ok && Array.isArray(data.values) ? data.values.filter((v) => typeof v === "string") : [];
      const total = ok && typeof data.total === "number" ? data.total : values.length;
      show(values.filter((value) => value !== control.value), Math.max(0, total - values.length));
    };
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(ask, COMPLETION_DELAY_MS);
    };
    control.addEventListener("input", later);
    control.addEventListener("focus", later);
    control.addEventListener("keydown", (event) => { if (event.key === "Escape") list.hidden = true; });
  }

  // RFC 6570 templates as MCP servers use them: {var}, {+var}, {#var}, {.var}, {/var}, {;var},
  // {?a,b}, {&a}. Values are strings; unreserved characters stay, the rest is %-encoded.
  const TEMPLATE = /\{([+#./;?&]?)([^}]*)\}/g;

  function templateVariables(template) {
    const names = [];
    for (const match of template.matchAll(TEMPLATE)) {
      for (const spec of match[2].split(",")) {
        const name = spec.replace(/[*]$|:\d+$/, "").trim();
        if (name && !names.includes(name)) names.push(name);
      }
    }
    return names;
  }

  function expandTemplate(template, values) {
    const encode = (value, reserved) => reserved
      ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1")
      : encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return template.replace(TEMPLATE, (_, operator, specs) => {
      const defined = specs.split(",").map((spec) => spec.replace(/[*]$|:\d+$/, "").trim())
        .filter((name) => values[name] !== undefined);
      const reserved = operator === "+" || operator === "#";
      const named = operator === ";" || operator === "?" || operator === "&";
      const parts = defined.map((name) => {
        const value = encode(String(values[name]), reserved);
        return named ? (operator === ";" && value === "" ? name : `${name}=${value}`) : value;
      });
      if (!parts.length) return "";
      const first = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" }[operator];
      const separator = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" }[operator];
      return first + parts.join(separator);
    });
  }

  // ---- results ------------------------------------------------------------------------------

  function resultBox(title, isError) {
    const box = $("#result");
    clear(box);
    box.classList.toggle("error", Boolean(isError));
    // After a call the answer matters more than the form above it.
    // (.detail is positioned, so offsetTop is measured inside it; scrollIntoView would also
    // scroll the overflow-hidden panels around it.)
    requestAnimationFrame(() => { box.parentElement.scrollTop = Math.max(0, box.offsetTop - 8); });
    box.appendChild(el("div", { className: "result-head" },
      el("h3", {}, title), isError ? el("span", { className: "badge error" }, "isError") : null));
    return box;
  }

  function renderResult(title, result, server) {
    const isError = Boolean(result && result.isError);
    const box = resultBox(`Result of ${title}`, isError);
    for (const part of (result && result.content) || []) box.appendChild(renderPart(part, server));
    if (result && result.structuredContent !== undefined) {
      box.appendChild(el("div", { className: "part-label" }, "structured content"));
      box.appendChild(textBlock(pretty(result.structuredContent), "structured"));
    }
    if (!((result && result.content) || []).length && !(result && "structuredContent" in result)) {
      box.appendChild(el("p", { className: "placeholder" }, "(empty result)"));
    }
  }

  function renderContents(uri, result, server) {
    const box = resultBox(`Contents of ${uri}`, false);
    for (const content of (result && result.contents) || []) box.appendChild(renderResource(content, server));
    if (!((result && result.contents) || []).length) box.appendChild(el("p", { className: "placeholder" }, "(no contents)"));
  }

  function renderPrompt(name, result, server) {
    const box = resultBox(`Prompt ${name}`, false);
    if (result && result.description) box.appendChild(el("p", { className: "description" }, result.description));
    for (const message of (result && result.messages) || []) {
      box.appendChild(el("div", { className: "message" },
        el("div", { className: "role" }, String(message.role)),
        renderPart(message.content || {}, server)));
    }
  }

  /** One content part of a tool result or prompt message. */
  function renderPart(part, server) {
    const type = part && part.type;
    if (type === "text") return textBlock(part.text, "text");
    if (type === "image") return renderImage(part.data, part.mimeType, "image");
    if (type === "audio") {
      return el("div", { className: "part note" }, `audio (${part.mimeType || "unknown type"}), ${plural(base64Bytes(part.data), "byte")}: not played here`);
    }
    if (type === "resource_link") {
      return el("div", { className: "part link" },
        el("button", {
          type: "button", className: "resource-link", title: "read this resource",
          on: { click: () => readResource(server, part.uri, null) },
        }, `Read ${part.uri}`),
        part.name ? el("span", { className: "item-sub" }, ` ${part.name}`) : null,
        part.description ? el("div", { className: "help" }, part.description) : null);
    }
    if (type === "resource") return renderResource(part.resource || {}, server);
    return el("div", { className: "part" }, el("div", { className: "part-label" }, `unknown part type ${String(type)}`),
      textBlock(pretty(part), "text"));
  }

  function renderResource(resource, server) {
    const box = el("div", { className: "part resource" },
      el("div", { className: "part-label" }, `${resource.uri || ""}${resource.mimeType ? ` (${resource.mimeType})` : ""}`));
    if (typeof resource.text === "string") box.appendChild(textBlock(resource.text, "text"));
    else if (typeof resource.blob === "string") {
      if (IMAGE_TYPES.has(String(resource.mimeType).toLowerCase())) box.appendChild(renderImage(resource.blob, resource.mimeType, "blob"));
      else box.appendChild(el("div", { className: "note" }, `binary, ${plural(base64Bytes(resource.blob), "byte")}: not shown`));
    }
    return box;
  }

  // `1 item`, `2 items`: as agent/text.py's plural says it.
  function plural(count, noun) {
    return `${count} ${count === 1 ? noun : noun + "s"}`;
  }

  function base64Bytes(data) {
    const text = String(data || "").replace(/\s/g, "");
    return Math.floor((text.length * 3) / 4) - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);
  }

  /** An <img> for base64 data of a whitelisted raster type, else a note saying why not. */
  function renderImage(data, mimeType, what) {
    const type = String(mimeType || "").toLowerCase();
    const text = String(data || "").replace(/\s/g, "");
    if (!IMAGE_TYPES.has(type)) return el("div", { className: "part note" }, `${what} of type ${String(mimeType)}: not shown`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return el("div", { className: "part note" }, `${what}: not valid base64, not shown`);
    return el("div", { className: "part image" }, el("img", { src: `data:${type};base64,${text}`, alt: `${type} image` }));
  }

  function showBridgeError(form, error) {
    const lines = String(error || "failed").split(/;\s+|\n/).filter(Boolean);
    form.showProblems(lines);
  }

  function showError(text) {
    const box = resultBox("Error", true);
    box.appendChild(el("p", { className: "server-error" }, text));
  }

  // ---- the hand-written message -------------------------------------------------------------

  async function sendRaw() {
    const problems = $("#raw-problems");
    const answer = $("#raw-answer");
    clear(problems);
    answer.textContent = "";
    answer.classList.remove("error");
    const fail = (text) => problems.appendChild(el("li", {}, text));
    if (!state.selected) return fail("pick a server first");
    let message;
    try {
      message = JSON.parse($("#raw-message").value);
    } catch (error) {
      return fail(`not valid JSON: ${error.message}`);
    }
    if (!message || typeof message !== "object" || Array.isArray(message)) return fail('expected an object such as {"method": "tools/list"}');
    if (typeof message.method !== "string" || !message.method) return fail('expected a "method"');
    if ("id" in message && !(typeof message.id === "string" || Number.isInteger(message.id))) return fail('"id" must be a string or an integer');
    $("#raw-send").disabled = true;
    try {
      const { ok, data } = await api(serverPath(state.selected, "send"), { message });
      if (!ok) {
        answer.classList.add("error");
        answer.textContent = data.error;
      } else if (data.answer === null || data.answer === undefined) {
        answer.textContent = "(a notification: sent, no answer)";
      } else {
        answer.textContent = pretty(data.answer);
        if (data.answer.error) answer.classList.add("error");
      }
    } finally {
      $("#raw-send").disabled = false;
    }
  }

  // ---- the log ------------------------------------------------------------------------------

  function logSummary(entry) {
    let method = entry.method;
    const key = `${entry.server}\u0000${entry.id}`;
    if (entry.kind === "request" && entry.id !== null && entry.id !== undefined) state.requests.set(key, entry.method);
    const answer = entry.kind === "response" || entry.kind === "error" || entry.kind === "fallback";
    if (answer && !method) method = state.requests.get(key) || null;
    const id = entry.id === null || entry.id === undefined ? "" : ` #${entry.id}`;
    if (entry.kind === "stderr" || entry.kind === "note") return entry.kind;
    if (entry.kind === "response") return `${method || "response"}${id} result`;
    if (entry.kind === "error") return `${method || "response"}${id} error`;
    // The era probe refused: how every connection finds its protocol era, not a failure.
    if (entry.kind === "fallback") return `${method || "response"}${id} ${String(entry.note || "refused (the normal fallback)")}`;
    return `${method || entry.kind}${id}`;
  }

  /** HH:MM:SS.mmm in the person's time zone (the bridge sends UTC ISO times). */
  function clock(time) {
    const date = new Date(String(time || ""));
    if (Number.isNaN(date.getTime())) return String(time || "");
    const two = (n) => String(n).padStart(2, "0");
    return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, "0")}`;
  }

  const ARROWS = { sent: "→", received: "←", stderr: "!", note: "·" };

  function addLog(entry) {
    if (typeof entry.seq === "number") {
      if (entry.seq <= state.lastSeq) return; // replayed by a reconnected stream: shown already
      state.lastSeq = entry.seq;
    }
    const log = $("#log");
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 24;
    const direction = ARROWS[entry.direction] ? entry.direction : "note";
    const text = String(entry.text || "");
    const item = el("li", { className: `entry ${direction} kind-${entry.kind}`, title: "click to expand" },
      el("div", { className: "entry-line" },
        el("span", { className: "time" }, clock(entry.time)),
        el("span", { className: "arrow" }, ARROWS[direction]),
        el("span", { className: "origin" }, String(entry.server || "")),
        el("span", { className: "summary" }, logSummary(entry)),
        el("span", { className: "preview" }, text.slice(0, 300))));
    item.dataset.direction = direction;
    item.dataset.search = `${entry.server} ${entry.method || ""} ${entry.id ?? ""} ${item.querySelector(".summary").textContent} ${text}`.toLowerCase();
    if (entry.seq !== undefined) item.dataset.seq = String(entry.seq);
    if (entry.id !== null && entry.id !== undefined) item.dataset.id = String(entry.id);
    item.addEventListener("click", (event) => {
      if (event.target.closest("pre, .cut-note")) return; // selecting text in the expanded body
      toggleEntry(item, entry);
    });
    applyFilter(item);
    log.appendChild(item);
    while (log.childElementCount > LOG_CAP) log.removeChild(log.firstElementChild);
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  function toggleEntry(item, entry) {
    const expanded = item.classList.toggle("expanded");
    const body = $(".entry-body", item);
    if (!expanded) {
      if (body) body.remove();
      return;
    }
    const text = String(entry.text || "");
    const shown = entry.kind === "stderr" || entry.kind === "note" ? text : prettyText(text);
    item.appendChild(el("div", { className: "entry-body" },
      textBlock(shown, "json"),
      entry.cut ? el("div", { className: "cut-note" }, "the bridge cut this message") : null));
  }

  function filterState() {
    const text = $("#log-filter").value.trim().toLowerCase();
    const directions = new Set($$("input.log-dir").filter((box) => box.checked).map((box) => box.value));
    return { text, directions };
  }

  function applyFilter(item, current) {
    const { text, directions } = current || filterState();
    item.hidden = !directions.has(item.dataset.direction) || (text !== "" && !item.dataset.search.includes(text));
  }

  function refilter() {
    const current = filterState();
    for (const item of $$("#log li.entry")) applyFilter(item, current);
  }

  // ---- elicitations -------------------------------------------------------------------------

  /**
   * The bridge judged the URL already (https, or http to this machine); the page checks again
   * before making a link of it, so nothing else could ever become one.
   */
  function openableUrl(text) {
    let parsed;
    try {
      parsed = new URL(text);
    } catch (_) {
      return null;
    }
    const local = parsed.hostname === "localhost" || parsed.hostname === "[::1]" || /^127\./.test(parsed.hostname);
    return parsed.protocol === "https:" || (parsed.protocol === "http:" && local) ? parsed.href : null;
  }

  /**
   * A web page request: the whole URL and its host as text, and a link only the person's
   * click follows, into a new tab (this page never navigates itself); the click accepts.
   */
  function showUrlElicitation(request) {
    const url = String(request.url || "");
    const form = el("form", { className: "elicitation url-elicitation", noValidate: true, dataset: { id: String(request.id) } });
    const answer = async (action) => {
      const { ok, status, data } = await api(`/api/elicitations/${encodeURIComponent(request.id)}`, { action, content: {} });
      if (ok || status === 404) form.remove();
      else showBridgeError(form, data.error);
    };
    form.addEventListener("submit", (event) => event.preventDefault());
    const href = openableUrl(url);
    const open = href === null
      ? el("span", { className: "problem" }, "This URL cannot be opened from here.")
      : el("a", {
        className: "open-page primary", href, target: "_blank", rel: "noopener noreferrer",
        on: { click: () => answer("accept") },
      }, "Open this page in a new tab");
    append(form, [
      el("div", { className: "elicitation-head" }, el("span", { className: "badge" }, "asks"),
        el("strong", { className: "origin" }, String(request.server || "")), " asks you to open a web page"),
      textBlock(String(request.message || ""), "message"),
      el("div", { className: "url-label" }, "The URL, in full:"),
      el("pre", { className: "url" }, url),
      el("pre", { className: "host" }, (Array.isArray(request.hostLines) ? request.hostLines : []).map(String).join("\n")),
      el("div", { className: "row buttons" }, open,
        el("button", { type: "button", className: "decline", on: { click: () => answer("decline") } }, "Decline"),
        el("button", { type: "button", className: "cancel", on: { click: () => answer("cancel") } }, "Cancel"))]);
    $("#elicitations").appendChild(form);
  }

  function showElicitation(request) {
    if ($$("form.elicitation").some((form) => form.dataset.id === String(request.id))) return;
    if (request.mode === "url") return showUrlElicitation(request);
    const answer = async (action, content) => {
      const body = action === "accept" ? { action, content } : { action, content: {} };
      const { ok, status, data } = await api(`/api/elicitations/${encodeURIComponent(request.id)}`, body);
      if (ok || status === 404) form.remove();
      else showBridgeError(form, data.error);
    };
    const form = schemaForm({
      className: "elicitation",
      dataset: { id: String(request.id) },
      schema: request.schema,
      submit: "Accept",
      submitClass: "accept",
      extraButtons: [
        el("button", { type: "button", className: "decline", on: { click: () => answer("decline") } }, "Decline"),
        el("button", { type: "button", className: "cancel", on: { click: () => answer("cancel") } }, "Cancel"),
      ],
      onSubmit: (content) => answer("accept", content),
    });
    form.prepend(
      el("div", { className: "elicitation-head" }, el("span", { className: "badge" }, "asks"),
        el("strong", { className: "origin" }, String(request.server || "")), " wants an answer"),
      textBlock(String(request.message || ""), "message"));
    $("#elicitations").appendChild(form);
  }

  function elicitationDone(done) {
    for (const form of $$("form.elicitation")) if (form.dataset.id === String(done.id)) form.remove();
  }

  // ---- events -------------------------------------------------------------------------------

  function parse(text) {
    try {
      return JSON.parse(text);
    } catch (_) {
      return null;
    }
  }

  const HANDLERS = {
    log: addLog,
    server: updateServer,
    elicitation: showElicitation,
    "elicitation-done": elicitationDone,
  };

  /** One server-sent event block ("event: T\ndata: JSON" lines) handed to its handler. */
  function dispatch(block) {
    let type = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue; // a ping
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") type = value;
      else if (field === "data") data.push(value);
    }
    const handler = Object.hasOwn(HANDLERS, type) ? HANDLERS[type] : null;
    const value = data.length ? parse(data.join("\n")) : null;
    if (handler && value) handler(value);
  }

  /** Read an open event stream until it ends. */
  async function readEvents(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The event stream is a fetch() rather than an EventSource, which cannot send the key's
  // header. A stream that ends or breaks is opened again (the bridge replays the state); a
  // refused one, or a console gone for three tries in a row, is not.
  async function listen() {
    const status = $("#stream-state");
    const show = (text, live) => {
      status.textContent = text;
      status.className = `stream-state ${live ? "live" : "down"}`;
    };
    let failures = 0;
    while (failures < 3) {
      let response = null;
      try {
        response = await fetch("/api/events", {
          credentials: "same-origin", cache: "no-store", headers: { [KEY_HEADER]: pageKey },
        });
      } catch (_) {
        response = null; // the console is not reachable
      }
      if (response && !response.ok) {
        show("stopped", false);
        const text = (await response.text()).trim();
        banner(response.status === 401 ? text : `The event stream was refused: ${text}`);
        return;
      }
      if (response && response.body) {
        show("live", true);
        failures = 0;
        try {
          await readEvents(response.body);
        } catch (_) {
          // the connection broke: open it again below
        }
      } else {
        failures += 1;
      }
      show("reconnecting…", false);
      await pause(1000);
    }
    show("stopped", false);
    banner("The console stopped: run agent mcp console again and open its new link.");
  }

  async function start() {
    for (const button of $$("button.tab")) button.addEventListener("click", () => showTab(button.dataset.tab));
    $("#raw-send").addEventListener("click", sendRaw);
    $("#raw-message").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) sendRaw();
    });
    $("#log-filter").addEventListener("input", refilter);
    for (const box of $$("input.log-dir")) box.addEventListener("change", refilter);
    $("#log-clear").addEventListener("click", () => clear($("#log")));
    if (!pageKey) {
      $("#stream-state").textContent = "no key";
      banner(NO_KEY);
      return;
    }
    const { ok, data } = await api("/api/servers");
    if (ok) {
      for (const server of data.servers || []) updateServer(server);
      if (!state.selected && data.servers && data.servers.length) select(data.servers[0].name);
    } else if (data && data.error) {
      banner(data.error);
    }
    listen();
  }

  start();
})();
