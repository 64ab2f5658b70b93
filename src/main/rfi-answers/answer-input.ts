/**
 * What the analyst writes for an answer, before it is saved as a draft or queued: the checks it
 * must pass (against the question type and the staged files) and how a draft is shown.
 */

import { questionTypeInfo } from '../../shared/catalogue';
import type { DraftView } from '../../shared/ipc/channels/rfi-answers';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankScope } from '../bank/scope';
import type { DraftRecord } from './drafts';
import type { FileArea } from './files';
import type { NewAnswer } from './outbox';

export interface DraftInput {
  /** The bank scope of the profile that owns the RFI (default: the active profile's). */
  owner?: BankScope;
  rfiId: string;
  questionId: string;
  questionType: string;
  text: string;
  files: string[];
  /** A team's approved send job this answer carries out (set by main only, never by the page). */
  teamJob?: NewAnswer['teamJob'];
  verifyFirst?: NewAnswer['verifyFirst'];
}

const invalid = (field: string, message: string): AppFailure =>
  new AppFailure({ kind: 'invalid_argument', field, message });

/**
 * Throws the analyst's reason when the input cannot be kept: a file main never issued or listed
 * twice (drafts and answers); for a submit also an answer the question type does not take, or a
 * file over the upload limit.
 */
export function checkAnswer(
  d: DraftInput,
  forSubmit: boolean,
  files: FileArea,
  maxBytes: () => number,
  owner: string | null,
): void {
  // Throws for refs main never issued, and for files staged for another profile's answer.
  for (const ref of d.files) files.checkOwner(ref, owner);
  if (new Set(d.files).size !== d.files.length) throw invalid('files', 'The same file is listed twice.');
  if (!forSubmit) return;
  const info = questionTypeInfo(d.questionType);
  const text = d.text.trim();
  if (info.expects === 'text' && text === '') throw invalid('text', 'Write an answer first.');
  if (info.expects === 'text' && d.files.length > 0) {
    throw invalid('files', 'This question takes a text answer; remove the documents.');
  }
  if (info.expects === 'documents' && d.files.length === 0)
    throw invalid('files', 'Add at least one document.');
  if (info.expects === 'documents' && text !== '') {
    throw invalid('text', 'This question takes documents only; the bank refuses a text with them.');
  }
  if (info.expects === 'either' && text === '' && d.files.length === 0) {
    throw invalid('text', 'Write an answer or add a document.');
  }
  for (const ref of d.files) {
    const f = files.resolve(ref);
    if (f.sizeBytes > maxBytes())
      throw invalid('files', `${f.name} is larger than the ${maxBytes()}-byte limit.`);
  }
}

/** A draft as the analyst sees it. */
export function draftViewOf(files: FileArea, rfiId: string, questionId: string, d: DraftRecord): DraftView {
  return {
    rfiId,
    questionId,
    questionType: d.questionType,
    text: d.text,
    // A file whose ref was lost (registry moved aside) is left out rather than failing the draft.
    files: d.files.flatMap((ref) => {
      try {
        return [files.view(ref)];
      } catch {
        return [];
      }
    }),
    updatedAt: d.updatedAt,
  };
}

/** The answer queued for a checked input: its text and its staged files as they are now. */
export function newAnswerOf(d: DraftInput, files: FileArea): NewAnswer {
  return {
    rfiId: d.rfiId,
    questionId: d.questionId,
    questionType: d.questionType,
    text: d.text,
    ...(d.teamJob ? { teamJob: d.teamJob } : {}),
    ...(d.verifyFirst ? { verifyFirst: true } : {}),
    documents: d.files.map((ref) => {
      const f = files.resolve(ref);
      return {
        ref,
        name: f.name,
        contentType: f.contentType,
        documentType: f.documentType,
        sizeBytes: f.sizeBytes,
      };
    }),
  };
}
