"""The page's pure helpers, run in the browser: IR diff, guess checking, trace/script comparison,
module folding, C highlighting, memory-plan lookup and URL state. The tests share one page
(reused_page): each imports the module it tests into the page as loaded."""
import pytest

pytestmark = pytest.mark.browser


def js(page, body):
    return page.evaluate(f"async () => {{ {body} }}")


def test_ir_diff_keeps_common_lines(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/irdiff.js');
        return m.diffLines('a\\nb\\nc', 'a\\nc\\nd').map(d => d.op + d.text);""")
    assert out == [" a", "-b", " c", "+d"]


def test_guess_matching(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/stepper.js');
        const t = {data: [2.0, 4.0]};
        return [m.guessMatches('2, 4', t), m.guessMatches('[2., 4.0001]', t), m.guessMatches('2', t),
                m.guessMatches('2 2', {data: [2, 2]}), m.guessMatches('3', {data: 3}), m.guessMatches('1', {data: null})];""")
    assert out == [True, True, False, True, True, None]


def test_compare_captures_finds_frozen_and_branch_nodes(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/staticview.js');
        const N = (id, op, line, kind='op') => ({id, op, line, kind, label: kind === 'input' ? 'x' : id});
        const trace = {frozen: [{line: 8, node: 't5'}], forward: {nodes: [N('t0','placeholder',null,'input'), N('t2','mul',7),
            N('t5','gt',8), N('t7','add',9), N('out','output',null,'output')]}};
        const script = {forward: {nodes: [N('s0','placeholder',null,'input'), N('s2','mul',7), N('s5','gt',8),
            N('s12','cond',8,'control'), N('out','output',null,'output')]}};
        return [m.compareCaptures(trace, script), m.functionName({ir: 'graph my_model(%0 : f32[3] x):'}),
                m.warningLine('trace froze the branch at line 8: ...'), m.warningLine({line: 3})];""")
    cmp, name, line, line2 = out
    assert cmp == {"frozen": ["t5"], "traceOnly": ["t7"], "scriptOnly": ["s12"], "scriptAtFrozen": ["s12"]}
    assert (name, line, line2) == ("my_model", 8, 3)


def test_folding_by_module_and_repeats(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/collapse.js');
        const build = (epsIn) => {
            const nodes = [{id: 'x', op: 'input', kind: 'input', shape: [2]}];
            const edges = [];
            let prev = 'x';
            for (let b = 0; b < 4; b++) for (const op of ['mul', 'add']) {
                const id = `${op}${b}`; nodes.push({id, op, kind: 'op', module: `blocks.${b}`});
                edges.push({src: prev, dst: id}); prev = id; }
            if (epsIn !== null) { nodes.push({id: 'eps', op: 'const', kind: 'const', shape: []}); edges.push({src: 'eps', dst: `add${epsIn}`}); }
            return {nodes, edges};
        };
        const ids = (g, open) => m.displayGraph(g, new Set(open)).graph.nodes.map(n => n.id);
        const same = build(null), odd = build(2);
        return {
            top: ids(same, []), edges: m.displayGraph(same, new Set()).graph.edges.map(e => e.src + '>' + e.dst),
            repeat: ids(same, ['blocks']), unfolded: ids(same, ['blocks', 'blocks.*0']),
            opened: ids(same, ['blocks', 'blocks.*0', 'blocks.2']).sort(),
            // block 2 holds a constant the others lack: no run of 3 identical consecutive blocks is left
            broken: ids(odd, ['blocks']), epsOut: ids(odd, ['blocks', 'blocks.2']).includes('eps'),
            small: m.displayGraph(same, null).graph === same,
        };""")
    assert out["top"] == ["x", "fold_blocks"] and out["edges"] == ["x>fold_blocks"]
    assert out["repeat"] == ["x", "fold_blocks.*0"]
    assert out["unfolded"] == ["x", "fold_blocks.0", "fold_blocks.1", "fold_blocks.2", "fold_blocks.3"]
    assert out["opened"] == sorted(["x", "fold_blocks.0", "fold_blocks.1", "mul2", "add2", "fold_blocks.3"])
    assert out["broken"] == ["x", "fold_blocks.0", "fold_blocks.1", "fold_blocks.2", "fold_blocks.3"]
    assert out["epsOut"] and out["small"]


def test_c_highlighting_escapes_and_marks_tokens(reused_page):
    page = reused_page(apart="js_units")
    html = js(page, """const m = await import('/static/js/kernels.js');
        const d = document.createElement('div');
        d.append(m.highlightC('/* a<b */ for (int64_t i = 0; i < n; i++) out[i] = 1.0f;'));
        return d.innerHTML;""")   # the DOM read back as markup (serialising, not parsing)
    assert '<span class="tok-com">/* a&lt;b */</span>' in html
    assert '<span class="tok-kw">for</span>' in html and '<span class="tok-ty">int64_t</span>' in html
    assert '<span class="tok-num">1.0f</span>' in html and "i &lt; n" in html


def test_url_state_round_trips(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/share.js');
        const h = m.hashOf({tab: 'step', g: 'g1', node: 'b:%3', step: 2, pass: null});
        return [h, m.readHash(h)];""")
    assert out[1] == {"tab": "step", "g": "g1", "node": "b:%3", "step": 2}


def test_tensor_views_table_heatmap_and_preview(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/tensorview.js');
        const stats = {min: -1, max: 2, mean: 0.5, std: 1};
        const div = (nodes) => { const d = document.createElement('div'); d.append(nodes); return d; };
        const table = div(m.tensorHTML({shape: [2, 2], dtype: 'float32', data: [[1, -1], [2, 0]], stats}));
        const heat = div(m.tensorHTML({shape: [512, 512], dtype: 'float32', data: null, stats, heatmap: [[1, -1, 0], [2, 0, 1]]}));
        const prev = div(m.tensorHTML({shape: [4096], dtype: 'float32', data: null, stats, preview: [1, 2, 3]}));
        return [table.querySelectorAll('td').length, table.querySelector('td').textContent,
                heat.querySelectorAll('svg.heatmap rect').length, prev.querySelectorAll('.heat-strip span').length,
                m.fmt(2.0), m.fmt(0.333333), m.fmt(1e-7)];""")
    assert out == [4, "1.", 6, 3, "2.", "0.3333", "1.00e-7"]


def test_calls_helpers_word_tensors_branches_and_stale_reasons(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/calls.js');
        const big = {shape: [64, 64], dtype: 'float32', data: null, stats: {mean: 0.5}};
        const broken = {kind: 'frozen', read: 'bool', code: 'x.sum() > 0', traced: true, now: false, holds: false, line: 12};
        const item = {kind: 'frozen', read: 'item', code: 'n = x.max().item()', traced: 3, now: 'nan', holds: false, line: 4};
        return [m.tensorText({shape: [3], data: [-1, 0.5, 2]}), m.tensorText({shape: [], data: 2.5}), m.tensorText(big),
                m.branchText(broken), m.branchText({kind: 'cond', taken: 'else'}), m.branchText({kind: 'while', iterations: 3}),
                m.staleText({branches: [{kind: 'cond', taken: 'then'}, broken]}), m.staleText({branches: [item]}),
                m.staleText({branches: [], reason: 'engine words'})];""")
    assert out[:3] == ["[-1., 0.5, 2.]", "2.5", "float32[64, 64] mean 0.5"]
    assert out[3:6] == ["x.sum() > 0 is false now, but the trace froze true", "if on a tensor: took the else branch",
                        "while on a tensor: ran 3 times"]
    assert out[6].startswith("Traced with x.sum() > 0 true; this input makes it false: the trace still runs the true branch (line 12)")
    assert out[7].startswith("While tracing, n = x.max().item() read 3. from a tensor; this input gives nan")
    assert out[8] == "engine words"


def test_a_backward_node_finds_the_card_of_the_op_it_differentiates(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/inspector.js');
        m.setOpCards({ops: {mul: {name: 'mul'}, reshape: {name: 'reshape'}}, grad_fns: {MulBackward0: 'mul'}});
        const name = (node) => (m.cardFor(node) || {name: null}).name;
        return [name({op: 'mul'}), name({op: 'MulBackward0'}), name({op: 'UnsafeViewBackward0', forward_op: 'reshape'}),
                name({op: 'SquareBackward', forward_op: 'Square'})];""")
    assert out == ["mul", "mul", "reshape", None]     # a grad_fn name that depends on shapes; a custom Function


def test_a_kept_tensor_is_drawn_from_the_record_then_from_the_servers_summary(reused_page):
    page = reused_page(apart="js_units")
    out = js(page, """const m = await import('/static/js/tensorview.js');
        const stats = {min: -1, max: 2, mean: 0.5, std: 1};
        const div = (nodes) => { const d = document.createElement('div'); d.append(nodes); return d; };
        const kept = {shape: [512, 512], dtype: 'float32', data: null, stats, preview: [1, 2], values: 'v3'};
        const asked = [];
        const real = window.fetch;
        window.fetch = async (url) => {
          asked.push(url);
          if (url.includes('/gone/')) return new Response(JSON.stringify({detail: 'no longer kept'}), {status: 404});
          return new Response(JSON.stringify({...kept, values: undefined, heatmap: [[1, -1], [2, 0]]}),
                              {headers: {'content-type': 'application/json'}});
        };
        try {
          m.setTensorRun('abc_DEF-123');
          const shown = div(m.tensorHTML(kept));
          const first = [shown.querySelectorAll('.heat-strip span').length, !!shown.querySelector('.tensor-fetch')];
          await new Promise((done) => setTimeout(done, 50));
          const later = [shown.querySelectorAll('svg.heatmap rect').length, shown.querySelector('a[download]').getAttribute('href')];
          m.setTensorRun('gone');
          const gone = div(m.tensorHTML({...kept, values: 'v4'}));
          await new Promise((done) => setTimeout(done, 50));
          m.setTensorRun(null);
          const none = div(m.tensorHTML({...kept, values: 'v5'}));
          return [first, later, asked, gone.querySelectorAll('.heat-strip span').length,
                  gone.querySelector('.tensor-fetch.error') !== null, none.querySelector('.tensor-fetch').textContent.length > 0];
        } finally { window.fetch = real; m.setTensorRun(null); }""")
    assert out[0] == [2, True]
    assert out[1] == [4, "/api/runs/abc_DEF-123/tensors/v3"]
    assert out[2] == ["/api/runs/abc_DEF-123/tensors/v3/summary", "/api/runs/gone/tensors/v4/summary"]
    assert out[3:] == [2, True, True]
