/** Test fixtures: the rating presets as GET /api/v1/rating-presets/ answers them (issue 15 contract). */
import type { RatingItem, Scale } from './items';

const ACR5: Scale = {
  kind: 'acr5',
  min: 1,
  max: 5,
  step: 1,
  labels: [
    { value: 1, text: { en: 'Bad', de: 'Schlecht' } },
    { value: 2, text: { en: 'Poor', de: 'Dürftig' } },
    { value: 3, text: { en: 'Fair', de: 'Ordentlich' } },
    { value: 4, text: { en: 'Good', de: 'Gut' } },
    { value: 5, text: { en: 'Excellent', de: 'Ausgezeichnet' } },
  ],
};

const SEVEN_POINT: Scale = {
  kind: 'continuous',
  min: 1,
  max: 7,
  step: null,
  labels: [
    { value: 1, text: { en: 'extremely bad', de: 'extrem schlecht' } },
    { value: 7, text: { en: 'ideal', de: 'ideal' } },
  ],
};

const BINARY: Scale = { kind: 'binary', min: 0, max: 1, step: 1, labels: [] };

export const OVERALL: RatingItem = {
  key: 'overall',
  question: { en: 'How would you rate the overall quality of the game?', de: 'Wie bewerten Sie die Gesamtqualität des Spiels?' },
  scale: ACR5,
  required: true,
};

export const GAMING_PRESET: RatingItem[] = [
  OVERALL,
  {
    key: 'input_quality',
    question: { en: 'How would you rate the quality of the input (responsiveness, control)?', de: 'Wie bewerten Sie die Qualität der Eingabe?' },
    scale: SEVEN_POINT,
    required: true,
  },
  {
    key: 'video_quality',
    question: { en: 'How would you rate the quality of the video?', de: 'Wie bewerten Sie die Qualität des Videos?' },
    scale: SEVEN_POINT,
    required: true,
  },
  {
    key: 'acceptance',
    question: { en: 'Would you accept this quality for playing this game?', de: 'Würden Sie diese Qualität zum Spielen dieses Spiels akzeptieren?' },
    scale: BINARY,
    required: true,
  },
];

export const RATING_PRESETS = {
  acr5: [OVERALL],
  gaming: GAMING_PRESET,
  scales: {
    acr5: ACR5,
    dcr5: { ...ACR5, kind: 'dcr5', labels: [] },
    discrete: { kind: 'discrete', min: 1, max: 7, step: 1, labels: [] },
    continuous: SEVEN_POINT,
    binary: BINARY,
  } satisfies Record<Scale['kind'], Scale>,
};
