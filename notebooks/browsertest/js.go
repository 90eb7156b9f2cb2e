package main

// The JavaScript the driver evaluates in the classic notebook's page. Each
// is a function (rod's Eval calls it with the arguments given) and returns
// a JSON string, decoded into the Go types of notebook.go.

// jsState reports whether the kernel is connected and, for every code
// cell, its prompt (a number once run, "*" while queued or running, null
// if never run) and whether its output holds a data-figure element; it
// also says whether the kernel died or restarted since jsWatchKernel.
const jsState = `() => {
	const nb = globalThis.Jupyter && Jupyter.notebook;
	if (!nb || !nb.kernel) return JSON.stringify({connected: false, cells: []});
	const cells = [];
	nb.get_cells().forEach((c, i) => {
		if (c.cell_type !== 'code') return;
		const out = c.output_area.element[0];
		const p = c.input_prompt_number;
		cells.push({index: i, prompt: p === undefined ? null : p,
			figure: !!out.querySelector('[data-figure]')});
	});
	return JSON.stringify({connected: nb.kernel.is_connected(), kernel: nb.kernel.name,
		trouble: globalThis.__browsertestKernelTrouble || '',
		commFailed: globalThis.__browsertestCommFailed || '', cells: cells});
}`

// jsWatchKernel records a dead or restarting kernel, and GoNB's
// front-end connection (gonb_comm) failing to open, which would otherwise
// only show as cells that never finish.
const jsWatchKernel = `() => {
	Jupyter.notebook.events.on('kernel_dead.Kernel kernel_restarting.Kernel kernel_killed.Session', (e) => {
		globalThis.__browsertestKernelTrouble = e.type + '.' + e.namespace;
	});
	const consoleError = console.error.bind(console);
	console.error = (...args) => {
		const text = args.map(String).join(' ');
		if (text.startsWith('gonb_comm: failed to connect')) globalThis.__browsertestCommFailed = text;
		consoleError(...args);
	};
	return JSON.stringify(true);
}`

// jsRestartRunAll restarts the kernel and runs every cell again, once the
// new kernel is ready (the classic UI's "Restart & Run All", without its
// dialog). The restart is not the trouble jsWatchKernel looks for.
const jsRestartRunAll = `async () => {
	globalThis.__browsertestCommFailed = '';
	await Jupyter.notebook.restart_run_all({confirm: false});
	globalThis.__browsertestKernelTrouble = '';
	return JSON.stringify(true);
}`

// jsRunAll runs every cell, with autosave off (the driver saves once at
// the end).
const jsRunAll = `() => {
	Jupyter.notebook.set_autosave_interval(0);
	Jupyter.notebook.execute_all_cells();
	return JSON.stringify(true);
}`

// jsWidgets lists the widgets in cell i's output: each element with
// data-param that holds a range input, a select or a button. A select's
// value and options are the texts it shows (GoNB's option values are
// indices, which a figure's title would not show).
const jsWidgets = `(i) => {
	const out = Jupyter.notebook.get_cell(i).output_area.element[0];
	const ws = [];
	out.querySelectorAll('[data-param]').forEach((l) => {
		const el = l.querySelector('input[type=range], select, button');
		if (!el) return;
		const tag = el.tagName.toLowerCase();
		const w = {param: l.dataset.param, kind: tag === 'input' ? 'range' : tag, value: el.value};
		if (w.kind === 'range') { w.min = Number(el.min); w.max = Number(el.max); }
		if (w.kind === 'select') {
			w.options = Array.from(el.options).map((o) => o.text);
			w.value = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : '';
		}
		ws.push(w);
	});
	return JSON.stringify(ws);
}`

// jsMove sets the widget param of cell i to value (a select's: the text
// of an option) and fires input and change, as a user's drag does (a
// button is clicked); it returns the value the widget now shows (the
// browser clamps to the range).
const jsMove = `(i, param, value) => {
	const out = Jupyter.notebook.get_cell(i).output_area.element[0];
	const l = out.querySelector('[data-param="' + CSS.escape(param) + '"]');
	const el = l && l.querySelector('input[type=range], select, button');
	if (!el) return JSON.stringify(null);
	if (el.tagName === 'BUTTON') { el.click(); return JSON.stringify('clicked'); }
	if (el.tagName === 'SELECT') {
		const o = Array.from(el.options).find((o) => o.text === value);
		if (!o) return JSON.stringify(null);
		el.value = o.value;
	} else {
		el.value = value;
	}
	el.dispatchEvent(new Event('input', {bubbles: true}));
	el.dispatchEvent(new Event('change', {bubbles: true}));
	return JSON.stringify(el.tagName === 'SELECT' ? el.options[el.selectedIndex].text : el.value);
}`

// jsFigure reads the last data-figure element of cell i's output: its
// data attributes, its SVG's first text (the title) and a digest of what
// its SVGs draw besides text (paths, rasters), to tell a redrawn figure
// from one whose labels alone changed.
const jsFigure = `(i) => {
	const out = Jupyter.notebook.get_cell(i).output_area.element[0];
	const figs = out.querySelectorAll('[data-figure]');
	if (figs.length === 0) return JSON.stringify(null);
	const f = figs[figs.length - 1];
	const t = f.querySelector('svg text');
	let drawn = '';
	f.querySelectorAll('svg').forEach((svg) => {
		const c = svg.cloneNode(true);
		c.querySelectorAll('text').forEach((e) => e.remove());
		drawn += c.innerHTML;
	});
	let h = 0;
	for (let k = 0; k < drawn.length; k++) { h = (Math.imul(h, 31) + drawn.charCodeAt(k)) | 0; }
	return JSON.stringify({data: Object.assign({}, f.dataset), title: t ? t.textContent : '',
		drawing: drawn.length + ':' + (h >>> 0).toString(16)});
}`

// jsMark tags cell i's output area so that it can be found for a
// screenshot.
const jsMark = `(i) => {
	Jupyter.notebook.get_cell(i).output_area.element[0].setAttribute('data-browsertest-cell', String(i));
	return JSON.stringify(true);
}`

// jsOutputs summarizes every code cell's outputs for the final checks:
// errors, stream text (for panics) and whether it shows a figure.
const jsOutputs = `() => {
	const cells = [];
	Jupyter.notebook.get_cells().forEach((c, i) => {
		if (c.cell_type !== 'code') return;
		const p = c.input_prompt_number;
		cells.push({index: i, prompt: p === undefined ? null : p, source: c.get_text().slice(0, 400),
			outputs: c.output_area.outputs.map((o) => {
				const d = o.data || {};
				const html = [].concat(d['text/html'] || []).join('');
				return {type: o.output_type, ename: o.ename || '', evalue: o.evalue || '',
					text: [].concat(o.text || []).join('').slice(-4000),
					figure: !!(d['image/png'] || d['image/svg+xml']) ||
						/<img[^>]+data:image\/(png|svg)|<svg/.test(html)};
			})});
	});
	return JSON.stringify(cells);
}`

// jsSave saves the notebook (with its outputs) and marks it clean, so
// that closing the page asks nothing.
const jsSave = `async () => {
	await Jupyter.notebook.save_notebook();
	Jupyter.notebook.set_dirty(false);
	window.onbeforeunload = null;
	return JSON.stringify(true);
}`
