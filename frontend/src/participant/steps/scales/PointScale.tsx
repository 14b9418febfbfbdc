/** A scale of points as large labelled radio buttons: ACR-5, DCR-5, k-point discrete, yes/no. */
import type { Lang } from '../../../shared/participantLink';
import type { Translate } from '../../i18n';
import { labelFor, scalePoints } from '../../items';
import type { RatingItem } from '../../items';

/** Above this many points the options stack (one per row) already on mid-size screens. */
const MANY_POINTS = 7;

/** The id of a point's radio button, so that a number key can focus the point it chose. */
export const pointId = (name: string, value: number): string => `${name}-${value}`;

/** The text under a point: its label, else (binary) yes/no, else nothing beyond the number. */
function pointText(item: RatingItem, value: number, lang: Lang, t: Translate): string {
  const own = labelFor(item.scale, value, lang);
  if (own) return own;
  if (item.scale.kind === 'binary') return value === 1 ? t('yes') : t('no');
  return '';
}

export function PointScale({
  item,
  name,
  value,
  lang,
  t,
  onChange,
}: {
  item: RatingItem;
  /** Unique per item on the screen: the radio group's name and the ids' prefix. */
  name: string;
  value: number | undefined;
  lang: Lang;
  t: Translate;
  onChange: (value: number) => void;
}) {
  const points = scalePoints(item.scale);
  // Binary shows "yes" first: the answer people look for; the keys stay 1 = yes, 0 = no.
  const shown = item.scale.kind === 'binary' ? [...points].reverse() : points;
  return (
    <div className={`p-scale p-scale--${item.scale.kind}${shown.length > MANY_POINTS ? ' p-scale--many' : ''}`} style={{ ['--p-points' as string]: String(shown.length) }}>
      {shown.map((point) => {
        const text = pointText(item, point, lang, t);
        const chosen = value === point;
        return (
          <label key={point} className={`p-scale__option${chosen ? ' is-chosen' : ''}`} htmlFor={pointId(name, point)}>
            <input
              id={pointId(name, point)}
              type="radio"
              name={name}
              value={point}
              checked={chosen}
              aria-label={text ? `${point} – ${text}` : String(point)}
              onChange={() => {
                onChange(point);
              }}
            />
            <span className="p-scale__score" aria-hidden="true">
              {point}
            </span>
            {text && (
              <span className="p-scale__label" aria-hidden="true">
                {text}
              </span>
            )}
          </label>
        );
      })}
    </div>
  );
}
