/**
 * The participant screens' message catalogue: English and German (the source study ran in
 * Würzburg). `de` must translate every key of `en` — the type checker enforces it — and
 * keep the same `{placeholders}` (a unit test checks).
 */
import type { Lang } from '../shared/participantLink';

const en = {
  documentTitle: 'QoE Lab study',
  switchLanguage: 'Deutsch',
  switchLanguageLabel: 'Auf Deutsch anzeigen',
  loading: 'Loading…',
  invalidLink: 'This session link is not valid. Please ask the researcher for a new one.',
  expiredTitle: 'This link has expired',
  expiredText:
    'The session of this link ended a while ago, so the link no longer opens it. If you still need it, please ask the researcher.',
  offline: 'Connection lost — we keep trying. Your answers are kept.',
  errorGeneric: 'Something went wrong: {detail}. Please tell the researcher.',
  roundOf: 'Round {n} of {total}',
  trainingRoundOf: 'Training round {n} of {total}',
  waitingTitle: 'Welcome',
  waitingText: 'Please wait: the researcher will start the session.',
  consentTitle: 'Consent',
  consentIntro:
    'You are taking part in a study on the quality of cloud gaming. You will play {game} for several short rounds and rate each round.',
  consentData:
    'We record your ratings and answers under a pseudonym — never your name. You can stop at any time without giving a reason.',
  consentCheck: 'I have read this and agree to take part.',
  consentMissing: 'Please confirm your consent to continue.',
  continue: 'Continue',
  questionnaireTitle: 'A few questions before you play',
  age: 'Your age (years)',
  ageInvalid: 'Please enter a whole number from 10 to 120.',
  skill: 'How would you rate your gaming skill?',
  skill_low: 'Low',
  skill_medium: 'Medium',
  skill_high: 'High',
  genre: 'Do you like playing games like {game}?',
  yes: 'Yes',
  no: 'No',
  required: 'Please answer this question.',
  optional: '(optional)',
  freePlayTitle: 'Free play',
  freePlayText: 'Get to know the game and its controls. Nothing is rated yet.',
  timeLeft: 'Time left',
  freePlayDone: 'Free play is over. Start the rated rounds when you are ready.',
  startRounds: 'Start the rounds',
  preparingTitle: 'Get ready',
  preparingText: 'The next round is being prepared.',
  playTitle: 'Play now',
  playText: 'Play the game as you normally would. You will rate this round afterwards.',
  ratingTitle: 'Your rating',
  ratingQuestion: 'How was your experience in the round you just played?',
  ratingHintOne: 'Choose your answer, then confirm (Enter).',
  ratingHintItems: 'Answer each question in turn (Tab moves to the next one), then confirm (Enter).',
  hintPoints: 'Choose one option (number keys).',
  hintSlider: 'Touch or click the line, or use the arrow keys. It has no value until you set one.',
  hintBinary: 'Choose yes (key 1 or Y) or no (key 0 or N).',
  sliderEmpty: 'no value yet',
  ratingSubmit: 'Submit rating',
  ratingMissing: 'Please choose a rating first.',
  itemsMissing: 'Please answer every required question first: {items}.',
  quoted: '“{text}”',
  sending: 'Sending…',
  savedOffline: 'Saved — it will be sent when the connection returns.',
  postTitle: 'Almost done: a few last questions',
  finish: 'Finish',
  thanksTitle: 'Thank you for taking part!',
  thanksText: 'You can put the controller down now and let the researcher know.',
  pausedTitle: 'Paused',
  pausedText: 'The session is paused. Please wait for the researcher.',
  endedTitle: 'Session ended',
  endedText: 'The session has ended. Thank you.',
  scale_1: 'bad',
  scale_2: 'poor',
  scale_3: 'fair',
  scale_4: 'good',
  scale_5: 'excellent',
  q_willing_to_pay: 'Would you pay a monthly fee for the experience you just had, if you could play any game you wanted?',
  q_attitude: 'What is your general attitude towards cloud gaming?',
  q_attitude_comment: 'What potential do you see in cloud gaming?',
  choice_yes: 'yes',
  choice_no: 'no',
  choice_negative: 'negative',
  choice_neutral: 'neutral',
  choice_positive: 'positive',
};

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;

const de: Messages = {
  documentTitle: 'QoE-Lab-Studie',
  switchLanguage: 'English',
  switchLanguageLabel: 'Show in English',
  loading: 'Wird geladen …',
  invalidLink: 'Dieser Sitzungslink ist ungültig. Bitte fragen Sie die Versuchsleitung nach einem neuen.',
  expiredTitle: 'Dieser Link ist abgelaufen',
  expiredText:
    'Die Sitzung zu diesem Link ist seit einiger Zeit beendet, daher öffnet der Link sie nicht mehr. Falls Sie ihn noch brauchen, fragen Sie bitte die Versuchsleitung.',
  offline: 'Verbindung unterbrochen – wir versuchen es weiter. Ihre Antworten bleiben erhalten.',
  errorGeneric: 'Etwas ist schiefgegangen: {detail}. Bitte sagen Sie der Versuchsleitung Bescheid.',
  roundOf: 'Runde {n} von {total}',
  trainingRoundOf: 'Übungsrunde {n} von {total}',
  waitingTitle: 'Willkommen',
  waitingText: 'Bitte warten Sie: Die Versuchsleitung startet gleich die Sitzung.',
  consentTitle: 'Einverständnis',
  consentIntro:
    'Sie nehmen an einer Studie zur Qualität von Cloud Gaming teil. Sie spielen {game} in mehreren kurzen Runden und bewerten jede Runde.',
  consentData:
    'Wir speichern Ihre Bewertungen und Antworten unter einem Pseudonym – niemals Ihren Namen. Sie können jederzeit ohne Angabe von Gründen aufhören.',
  consentCheck: 'Ich habe dies gelesen und bin mit der Teilnahme einverstanden.',
  consentMissing: 'Bitte bestätigen Sie Ihr Einverständnis, um fortzufahren.',
  continue: 'Weiter',
  questionnaireTitle: 'Ein paar Fragen vor dem Spiel',
  age: 'Ihr Alter (Jahre)',
  ageInvalid: 'Bitte geben Sie eine ganze Zahl von 10 bis 120 ein.',
  skill: 'Wie schätzen Sie Ihre Erfahrung mit Videospielen ein?',
  skill_low: 'Gering',
  skill_medium: 'Mittel',
  skill_high: 'Hoch',
  genre: 'Spielen Sie gern Spiele wie {game}?',
  yes: 'Ja',
  no: 'Nein',
  required: 'Bitte beantworten Sie diese Frage.',
  optional: '(freiwillig)',
  freePlayTitle: 'Freies Spielen',
  freePlayText: 'Lernen Sie das Spiel und seine Steuerung kennen. Noch wird nichts bewertet.',
  timeLeft: 'Verbleibende Zeit',
  freePlayDone: 'Die freie Spielzeit ist vorbei. Starten Sie die bewerteten Runden, sobald Sie bereit sind.',
  startRounds: 'Runden starten',
  preparingTitle: 'Machen Sie sich bereit',
  preparingText: 'Die nächste Runde wird vorbereitet.',
  playTitle: 'Jetzt spielen',
  playText: 'Spielen Sie wie gewohnt. Anschließend bewerten Sie diese Runde.',
  ratingTitle: 'Ihre Bewertung',
  ratingQuestion: 'Wie war Ihr Spielerlebnis in der gerade gespielten Runde?',
  ratingHintOne: 'Wählen Sie Ihre Antwort und bestätigen Sie mit der Eingabetaste.',
  ratingHintItems: 'Beantworten Sie die Fragen der Reihe nach (Tab führt zur nächsten) und bestätigen Sie mit der Eingabetaste.',
  hintPoints: 'Wählen Sie eine Option (Zifferntasten).',
  hintSlider: 'Tippen oder klicken Sie auf die Linie oder nutzen Sie die Pfeiltasten. Sie hat keinen Wert, bis Sie einen setzen.',
  hintBinary: 'Wählen Sie Ja (Taste 1 oder J) oder Nein (Taste 0 oder N).',
  sliderEmpty: 'noch kein Wert',
  ratingSubmit: 'Bewertung abschicken',
  ratingMissing: 'Bitte wählen Sie zuerst eine Bewertung.',
  itemsMissing: 'Bitte beantworten Sie zuerst alle Pflichtfragen: {items}.',
  quoted: '„{text}“',
  sending: 'Wird gesendet …',
  savedOffline: 'Gespeichert – wird gesendet, sobald die Verbindung wieder besteht.',
  postTitle: 'Fast geschafft: noch ein paar letzte Fragen',
  finish: 'Abschließen',
  thanksTitle: 'Vielen Dank für Ihre Teilnahme!',
  thanksText: 'Sie können den Controller jetzt ablegen und der Versuchsleitung Bescheid geben.',
  pausedTitle: 'Pause',
  pausedText: 'Die Sitzung ist pausiert. Bitte warten Sie auf die Versuchsleitung.',
  endedTitle: 'Sitzung beendet',
  endedText: 'Die Sitzung ist beendet. Vielen Dank.',
  // The German ACR labels of ITU-T P.800.
  scale_1: 'schlecht',
  scale_2: 'dürftig',
  scale_3: 'ordentlich',
  scale_4: 'gut',
  scale_5: 'ausgezeichnet',
  q_willing_to_pay:
    'Würden Sie für das eben erlebte Spielerlebnis eine monatliche Gebühr bezahlen, wenn Sie jedes beliebige Spiel spielen könnten?',
  q_attitude: 'Wie ist Ihre allgemeine Einstellung zu Cloud Gaming?',
  q_attitude_comment: 'Welches Potenzial sehen Sie in Cloud Gaming?',
  choice_yes: 'ja',
  choice_no: 'nein',
  choice_negative: 'negativ',
  choice_neutral: 'neutral',
  choice_positive: 'positiv',
};

export const CATALOGUE: Record<Lang, Messages> = { en, de };

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const messages = CATALOGUE[lang];
  return (key, params) =>
    messages[key].replace(/\{(\w+)\}/g, (whole, name: string) => (params && name in params ? String(params[name]) : whole));
}

/** A message for a server-provided key if the catalogue has one (`q_<key>`, `choice_<value>`). */
export function optionalMessage(lang: Lang, key: string): string | null {
  const messages = CATALOGUE[lang] as Record<string, string>;
  return Object.hasOwn(messages, key) ? (messages[key] ?? null) : null;
}

const ACR_EN = ['bad', 'poor', 'fair', 'good', 'excellent'];

/**
 * Label of a rating option: the catalogue's ACR label when the study uses the standard
 * five ACR labels (translated), else the study's own label as configured.
 */
export function scaleLabel(lang: Lang, labels: readonly string[], score: number): string {
  const own = labels[score - 1] ?? String(score);
  const standard = labels.length === 5 && labels.every((l, i) => l.trim().toLowerCase() === ACR_EN[i]);
  if (!standard) return own;
  return CATALOGUE[lang][`scale_${score}` as MessageKey];
}

export const isLang = (value: unknown): value is Lang => value === 'en' || value === 'de';

/**
 * The language of the participant's screens: the participant's own switch (kept per session)
 * wins, then the session link's `lang` (the researcher's override), then the study's language
 * (sent with every view); until the first view arrives — and on an invalid link — the browser's.
 */
export function chooseLanguage(sources: {
  stored: string | null;
  link: Lang | null;
  study: Lang | null;
  browser: string | undefined;
}): Lang {
  if (isLang(sources.stored)) return sources.stored;
  if (sources.link) return sources.link;
  if (sources.study) return sources.study;
  return sources.browser?.toLowerCase().startsWith('de') ? 'de' : 'en';
}
