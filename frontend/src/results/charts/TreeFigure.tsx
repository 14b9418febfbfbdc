/** The decision tree (fig. 4.10) as SVG: fit to width, zoom, pan, collapsible subtrees, SVG/PNG download. */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { RefObject } from 'react';

import type { AnalysisDoc, TreeNode } from '../analysisTypes';
import { download } from '../csv';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { factorLabel, layoutTree, round, splitLabel } from '../transforms';
import type { LaidOutNode } from '../transforms';
import { pct, treeEvidence } from '../treeEvidence';
import { fmt } from './common';
import { Figure, svgToPng } from './Figure';
import { useZoomPan } from './useZoomPan';

// --- fig. 4.10 --------------------------------------------------------------------------------

const NODE_W = 168;
const NODE_H = 64;
const GAP_X = 14;
const GAP_Y = 40;
/**
 * The text styles of a downloaded tree. On the page the same rules come from results.css
 * (`svg.tree`): the Content-Security-Policy allows no inline <style> element in the page,
 * and the detached clone below is never part of it.
 */
const STYLE = `text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:11px;fill:#1c2430}.rule{font-size:10px;fill:#5a6472}`;

/** The whole tree as a standalone SVG document (identity transform), for download and PNG. */
function standalone(svg: SVGSVGElement, width: number, height: number): SVGSVGElement {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = STYLE;
  clone.insertBefore(style, clone.firstChild);
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  clone.querySelector('[data-view]')?.removeAttribute('transform');
  return clone;
}

/** The tree's accuracy out of sample beside the majority rule and the training rows, its size and its stability. */
export function TreeEvidencePanel({ doc }: { doc: AnalysisDoc }) {
  const e = treeEvidence(doc);
  const rows: [string, string][] = [
    ['Cross-validated accuracy', e.cv === null ? '—' : `${pct(e.cv)}${e.cvSd !== null ? ` ± ${pct(e.cvSd)}` : ''}${e.folds !== null ? ` (${e.folds}-fold)` : ''}`],
    ['Always predicting the majority class', e.majority === null ? '—' : `${pct(e.majority)}${e.majorityClass ? ` (“${e.majorityClass.replace(/_/g, ' ')}”)` : ''}`],
    ['Accuracy on the training rows', pct(e.training)],
    ['Minimum leaf size', e.minLeaf === null ? '—' : String(e.minLeaf)],
    ['Leaves', e.leaves === null ? '—' : String(e.leaves)],
  ];
  return (
    <div className="tree-evidence" data-tree-verdict={e.verdict}>
      <p className={e.verdict === 'beats_majority' ? 'tree-evidence__verdict' : 'tree-evidence__verdict tree-evidence__verdict--weak'}>{e.sentence}</p>
      <table className="data-table tree-evidence__table" aria-label="How sure the tree is">
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td className="num">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {e.recurrence.length > 0 && (
        <table className="data-table tree-evidence__table" aria-label="How often the root split recurs">
          <thead>
            <tr>
              <th scope="col">Root split on</th>
              <th scope="col" className="num">Share of CV folds</th>
              <th scope="col" className="num">Share of other seeds</th>
            </tr>
          </thead>
          <tbody>
            {e.recurrence.map((r) => (
              <tr key={r.feature}>
                <th scope="row">{factorLabel(r.feature, doc)}</th>
                <td className="num">{pct(r.share_folds, 0)}</td>
                <td className="num">{pct(r.share_seeds, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function TreeFigure({ doc }: { doc: AnalysisDoc }) {
  const root = doc.tree.root;
  const full = useMemo(() => (root ? layoutTree(root) : null), [root]);
  const svgRef = useRef<SVGSVGElement>(null);
  const [size, setSize] = useState({ W: 1, H: 1 });
  const png = () => (svgRef.current ? svgToPng(standalone(svgRef.current, size.W, size.H)) : null);
  return (
    <Figure
      id="decision-tree"
      reference="Fig. 4.10"
      title="Decision tree: when is the quality acceptable?"
      caption={
        <>
          REPTree-style tree ({doc.tree.method}); {full?.nodes.length ?? 0} nodes, {full?.nodes.filter((n) => n.leaf).length ?? 0} leaves, training
          accuracy {round((doc.tree.training_accuracy ?? 0) * 100, 1)} %. Each node shows the rule that leads to it, its n and
          the share of acceptable ratings (≥ {doc.meta.acceptable_from}); green leaves predict acceptable. Click a node to
          collapse or expand its subtree; wheel or the buttons zoom, drag pans.
        </>
      }
      points={full?.nodes.length ?? 0}
      csv={{ header: ['node', 'depth', 'test_from_parent', 'split', 'n', 'p_acceptable', 'prediction'], rows: (full?.nodes ?? []).map((n) => row(n, doc)) }}
      png={png}
      filename="fig-4-10-decision-tree"
      unavailable={root ? null : (doc.notes?.tree ?? 'the tree could not be grown from these ratings')}
      warnings={warningsFor(doc, FIGURE_WHERE.tree)}
      summary={root ? <TreeEvidencePanel doc={doc} /> : null}
      table={
        <ol className="tree-rules" aria-label="Decision rules">
          {doc.tree.rules.map((r, i) => (
            <li key={i}>{r.text}</li>
          ))}
        </ol>
      }
    >
      {root && <TreeView root={root} doc={doc} svgRef={svgRef} onSize={setSize} />}
    </Figure>
  );
}

function row(n: LaidOutNode, doc: AnalysisDoc): Cell[] {
  return [n.id, n.depth, n.edge, n.node.split ? splitLabel(n.node, doc) : 'leaf', n.node.n, fmt(n.node.p_acceptable), n.node.prediction];
}

/** `onSize`: the drawing's full size, for the figure's "Download PNG" of the whole tree. */
function TreeView({ root, doc, svgRef, onSize }: { root: TreeNode; doc: AnalysisDoc; svgRef: RefObject<SVGSVGElement | null>; onSize: (s: { W: number; H: number }) => void }) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const { nodes, width, depth } = layoutTree(root, collapsed);
  const W = Math.max(1, width) * (NODE_W + GAP_X) + GAP_X;
  const H = (depth + 1) * (NODE_H + GAP_Y) + 10;
  const { boxRef, view, fit, zoom, handlers, viewportHeight, wasDrag } = useZoomPan(W, H);
  const pos = new Map(nodes.map((n) => [n.id, { cx: GAP_X + n.x * (NODE_W + GAP_X) + NODE_W / 2, y: 10 + n.depth * (NODE_H + GAP_Y) }]));
  const toggle = (id: string) => {
    if (wasDrag()) return;
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setCollapsed(next);
  };
  const file = (): SVGSVGElement | null => (svgRef.current ? standalone(svgRef.current, W, H) : null);
  useEffect(() => {
    onSize({ W, H });
  }, [onSize, W, H]);
  const innerIds = layoutTree(root).nodes.filter((n) => !n.leaf).map((n) => n.id);
  return (
    <>
      <div className="tree-toolbar" role="toolbar" aria-label="Decision tree view">
        <button type="button" className="button" onClick={() => { zoom(1.25); }}>
          Zoom in
        </button>
        <button type="button" className="button" onClick={() => { zoom(0.8); }}>
          Zoom out
        </button>
        <button type="button" className="button" onClick={fit}>
          Fit to width
        </button>
        <button type="button" className="button" onClick={() => { setCollapsed(new Set(innerIds.filter((id) => id.length - 1 >= 2))); }}>
          Collapse below level 2
        </button>
        <button type="button" className="button" onClick={() => { setCollapsed(new Set()); }} disabled={collapsed.size === 0}>
          Expand all
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            const svg = file();
            if (svg) download('fig-4-10-decision-tree.svg', new Blob([new XMLSerializer().serializeToString(svg)], { type: 'image/svg+xml' }));
          }}
        >
          Download SVG
        </button>
      </div>
      <div ref={boxRef} className="tree-viewport" style={{ height: viewportHeight }} data-zoom={view.k.toFixed(3)} {...handlers}>
        <svg ref={svgRef} className="tree" width="100%" height="100%" role="img" aria-label={`Decision tree with ${nodes.length} nodes`}>
          <g data-view transform={`translate(${view.x},${view.y}) scale(${view.k})`}>
            {nodes.map((n) => {
              const from = pos.get(n.parent ?? '');
              const to = pos.get(n.id);
              if (!from || !to) return null;
              const midY = (from.y + NODE_H + to.y) / 2;
              return <path key={`e-${n.id}`} d={`M${from.cx},${from.y + NODE_H} V${midY} H${to.cx} V${to.y}`} fill="none" stroke="#8a939f" />;
            })}
            {nodes.map((n) => {
              const p = pos.get(n.id);
              return p ? <NodeBox key={n.id} n={n} cx={p.cx} y={p.y} doc={doc} folded={collapsed.has(n.id)} onToggle={toggle} /> : null;
            })}
          </g>
        </svg>
      </div>
    </>
  );
}

function NodeBox({ n, cx, y, doc, folded, onToggle }: { n: LaidOutNode; cx: number; y: number; doc: AnalysisDoc; folded: boolean; onToggle: (id: string) => void }) {
  const inner = Boolean(n.node.left && n.node.right);
  const acceptable = n.node.prediction === 'acceptable';
  const fill = n.leaf && !folded ? (acceptable ? '#e2f3e7' : '#fbeceb') : '#eef1f5';
  const stroke = n.leaf && !folded ? (acceptable ? '#1d5b33' : '#a12a1f') : '#8a939f';
  const head = folded ? `▸ ${shorten(splitLabel(n.node, doc), 24)} (collapsed)` : n.leaf ? (acceptable ? 'acceptable' : 'not acceptable') : shorten(splitLabel(n.node, doc), 26);
  const share = n.node.p_acceptable === null ? '—' : `${Math.round(n.node.p_acceptable * 100)} % acceptable`;
  return (
    <g data-node={n.id} data-collapsed={folded ? 'true' : undefined} style={inner ? { cursor: 'pointer' } : undefined} onClick={inner ? () => { onToggle(n.id); } : undefined}>
      <title>{`${n.edge ?? 'all ratings'}: n = ${Math.round(n.node.n)}, ${share}${inner ? ' — click to collapse or expand' : ''}`}</title>
      <rect x={cx - NODE_W / 2} y={y} width={NODE_W} height={NODE_H} rx={6} fill={fill} stroke={stroke} strokeDasharray={folded ? '4 3' : undefined} />
      <text className="rule" x={cx} y={y + 15} textAnchor="middle">
        {shorten(n.edge ?? 'all ratings', 30)}
      </text>
      <text x={cx} y={y + 34} textAnchor="middle" fontWeight={600}>
        {head}
      </text>
      <text x={cx} y={y + 52} textAnchor="middle">
        n = {Math.round(n.node.n)} · {share}
      </text>
    </g>
  );
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
