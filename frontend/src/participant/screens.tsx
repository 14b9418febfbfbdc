import type { ScreenProps } from './steps/common';
import { Message, Round } from './steps/common';
import { FreePlay, Playing } from './steps/play';
import { PostQuestions, Questionnaire } from './steps/questionnaire';
import { Rating } from './steps/Rating';
import { TrapRating } from './steps/TrapRating';

export type { ScreenProps } from './steps/common';

/** One screen per step of the session, chosen by the server's state. */
export function Screen(props: ScreenProps) {
  const { view, t } = props;
  switch (view.step) {
    case 'waiting':
      return <Message title={t('waitingTitle')} text={t('waitingText')} stepKey="waiting" />;
    case 'questionnaire':
      return <Questionnaire {...props} />;
    case 'free_play':
      return <FreePlay {...props} />;
    case 'preparing':
      return (
        <Message title={t('preparingTitle')} text={t('preparingText')} stepKey={`preparing-${view.position ?? 0}`}>
          <Round view={view} t={t} />
        </Message>
      );
    case 'playing':
      return <Playing key={`playing-${view.position ?? 0}`} {...props} />;
    case 'rating':
      return view.trap ? <TrapRating key={`trap-${view.position ?? 0}`} {...props} /> : <Rating key={`rating-${view.position ?? 0}`} {...props} />;
    case 'post_questions':
      return <PostQuestions {...props} />;
    case 'thanks':
      return <Message title={t('thanksTitle')} text={t('thanksText')} stepKey="thanks" />;
    case 'paused':
      return <Message title={t('pausedTitle')} text={t('pausedText')} stepKey="paused" />;
    case 'ended':
      return <Message title={t('endedTitle')} text={t('endedText')} stepKey="ended" />;
  }
}
